//go:build wireinject

package wire

import (
	"github.com/google/wire"

	"github.com/jpcli/jp/app"
)

// InitializeCLI builds the app for the terminal front end. cleanup stops
// what the app started (MCP servers); call it when the command ends.
func InitializeCLI(opts Options) (*App, func(), error) {
	wire.Build(cliSet)
	return nil, nil, nil
}

// InitializeHeadless builds the app for the headless front end: prompts
// are answered from the script at opts.Headless. cleanup is as for
// InitializeCLI.
func InitializeHeadless(opts Options) (*Headless, func(), error) {
	wire.Build(headlessSet)
	return nil, nil, nil
}

// InitializePlugins builds plugin discovery alone, for jp -h and the
// routing of commands that are not built in: it reads files only.
func InitializePlugins(opts Options) *app.Plugins {
	wire.Build(pluginCatalogSet)
	return nil
}
