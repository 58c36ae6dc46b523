//go:build wireinject

package wire

import (
	"github.com/google/wire"

	"github.com/jpcli/jp/app"
)

// InitializeCLI builds the app for the terminal front end.
func InitializeCLI(opts Options) (*app.App, func(), error) {
	wire.Build(cliSet)
	return nil, nil, nil
}
