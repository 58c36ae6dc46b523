package ports

import (
	"context"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
)

// ProviderFactory makes the provider for a model under a configuration.
// Unknown providers are an error listing the known ones; a missing API key
// is an error naming its environment variable.
type ProviderFactory interface {
	Provider(ctx context.Context, cfg config.Config, model llm.ModelID) (Provider, error)
	// HasKey reports whether the API key of provider is set, for the
	// default model choice.
	HasKey(cfg config.Config, provider string) bool
}

// ToolSource opens the tools a turn may use in a checkout: the local
// command tools of the configuration (and, later, MCP servers). release
// ends whatever Open started; it is called once, after the turn.
type ToolSource interface {
	Open(ctx context.Context, cfg config.Config, root string) (server ToolServer, release func(), err error)
}
