package pluginhost

import (
	"context"
	"path/filepath"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// listWorkspaces answers list_workspaces (docs/plugins.md): the registry's known
// workspaces, in its order, each with its live checkouts, most recently
// used first. A workspace whose every recorded checkout is gone is listed
// with no roots, as jp workspace ls lists it; so is the default workspace
// (jp used outside any workspace), which has none and is marked Default:
// it is addressed by its ID alone. Launch marks the workspace
// this jp was launched in, the one a single-scope plugin works on.
func (s *session) listWorkspaces(ctx context.Context, req plugin.ListWorkspaces) (plugin.Message, error) {
	known, err := s.h.reg.Known(ctx)
	if err != nil {
		return nil, err
	}
	data := make([]plugin.WorkspaceEntry, len(known))
	for i, k := range known {
		live := k.LiveCheckouts()
		roots := make([]plugin.WorkspaceRoot, len(live))
		for j, c := range live {
			roots[j] = plugin.WorkspaceRoot{Path: c.Path, Storage: filepath.Join(c.Path, ".jp"), LastUsed: c.LastUsed.UTC()}
		}
		data[i] = plugin.WorkspaceEntry{ID: string(k.ID), Slug: k.Slug, Launch: k.ID == s.launch, Roots: roots,
			Default: k.ID == workspace.DefaultID}
	}
	return plugin.Workspaces{ID: req.ID, Data: data}, nil
}
