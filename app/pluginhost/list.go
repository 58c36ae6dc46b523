package pluginhost

import (
	"context"
	"log/slog"
	"strings"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/plugin"
)

// View is one plugin as jp plugin ls shows it.
type View struct {
	Name        string `json:"name"`
	Command     string `json:"command"`
	Path        string `json:"path"`
	Source      string `json:"source"`
	Version     string `json:"version"`
	Scope       string `json:"scope"`
	Trust       string `json:"trust"`
	Description string `json:"description"`
	// Problem says why the plugin cannot run (a bad manifest, shadowed by
	// an earlier binary of the same name); "" when it can.
	Problem string `json:"problem,omitempty"`
}

// ListInput says where to look and which configuration applies.
type ListInput struct {
	SearchPath []string
	Config     app.ConfigInput
}

// List returns every discovered plugin with its trust state under the
// configuration of the selected workspace (or the user layers outside
// one). It runs nothing and writes nothing.
func (h *Host) List(ctx context.Context, in ListInput) ([]View, error) {
	bins, err := h.plugins.Discover(ctx, in.SearchPath)
	if err != nil {
		return nil, err
	}
	res, err := h.cfg.Load(ctx, in.Config)
	if err != nil {
		return nil, err
	}
	out := make([]View, 0, len(bins))
	for _, b := range bins {
		v := View{Name: b.Name(), Command: strings.Join(b.Command(), " "), Path: b.Path, Source: b.Source.String(),
			Scope: "single", Description: b.Description()}
		if b.Manifest != nil {
			v.Version = b.Manifest.Version
			v.Scope = b.Manifest.Scope().String()
		}
		digest, derr := h.catalog.Digest(ctx, b.Path)
		var trust plugin.Trust
		if derr == nil {
			trust = h.trust(ctx, slog.New(slog.DiscardHandler), b, digest)
		}
		v.Trust = plugin.TrustState(b, res.Config.Plugin(b.Name()), digest, trust)
		switch {
		case derr != nil:
			v.Problem = derr.Error()
		case b.Shadowed:
			v.Problem = "shadowed by an earlier plugin named " + b.Name()
		default:
			if err := plugin.CheckRunnable(b); err != nil {
				v.Problem = err.Error()
			}
		}
		out = append(out, v)
	}
	return out, nil
}
