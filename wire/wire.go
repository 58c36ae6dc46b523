//go:build wireinject

package wire

import (
	"github.com/google/wire"

	"github.com/jpcli/jp/app"
)

// InitializeCLI builds the app for the terminal front end.
func InitializeCLI(opts Options) (*app.App, error) {
	wire.Build(cliSet)
	return nil, nil
}

// InitializeHeadless builds the app for the headless front end: prompts
// are answered from the script at opts.Headless.
func InitializeHeadless(opts Options) (*Headless, error) {
	wire.Build(headlessSet)
	return nil, nil
}
