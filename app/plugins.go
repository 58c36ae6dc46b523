package app

import (
	"context"
	"errors"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/ports"
)

// Plugins is the use case behind plugin discovery (docs/plugins.md): the Plugins
// section of jp -h, and routing a command that is not built in. It reads
// files only; it never runs a plugin.
type Plugins struct {
	catalog ports.PluginCatalog
}

// NewPlugins builds the use case.
func NewPlugins(catalog ports.PluginCatalog) *Plugins { return &Plugins{catalog: catalog} }

// Discover lists the installed plugins and the jp-* executables of
// searchPath ($PATH), in that order. A binary without a manifest file
// takes the manifest fields its approval recorded; a binary whose name an
// earlier one has is marked shadowed.
func (p *Plugins) Discover(ctx context.Context, searchPath []string) ([]plugin.Binary, error) {
	bins, err := p.catalog.Discover(ctx, searchPath)
	if err != nil {
		return nil, err
	}
	for i := range bins {
		b := &bins[i]
		if b.Manifest != nil || b.ManifestError != "" {
			continue
		}
		digest, err := p.catalog.Digest(ctx, b.Path)
		if err != nil {
			continue // unreadable: listed by file name, refused when run
		}
		a, err := p.catalog.Approval(ctx, digest)
		if err == nil && a.Manifest != nil {
			b.Manifest, b.ManifestFrom = a.Manifest, "approval"
		} else if err != nil && !errors.Is(err, ports.ErrNotFound) {
			continue
		}
	}
	return plugin.MarkShadowed(bins), nil
}

// Route finds the plugin for the words after jp (global flags removed):
// the longest claimed command path they start with. ok is false when no
// plugin claims them.
func (p *Plugins) Route(ctx context.Context, words, searchPath []string) (bin plugin.Binary, rest []string, ok bool, err error) {
	bins, err := p.Discover(ctx, searchPath)
	if err != nil {
		return plugin.Binary{}, nil, false, err
	}
	bin, rest, ok = plugin.Route(bins, words)
	return bin, rest, ok, nil
}
