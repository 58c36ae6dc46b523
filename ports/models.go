package ports

import (
	"context"

	"github.com/jpcli/jp/domain/config"
)

// ModelLister lists the models the providers of a configuration offer, for
// jp model ls, shell completion and the "did you mean" of an unknown model.
type ModelLister interface {
	// ListModels returns the names (without the provider prefix) that
	// provider's listing endpoint reports, sorted; the error is one line.
	ListModels(ctx context.Context, cfg config.Config, provider string) ([]string, error)
	// Listable are the providers listed when none is named: the demo,
	// each provider whose key is set, and the user's own.
	Listable(cfg config.Config) []string
	// Providers are every provider name cfg knows, sorted.
	Providers(cfg config.Config) []string
	// HowToEnable says in a few words what makes provider's models
	// usable (the variable holding its key, or the local server).
	HowToEnable(cfg config.Config, provider string) string
}
