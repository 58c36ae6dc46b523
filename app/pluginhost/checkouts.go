package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// checkout is one checkout a plugin works on: the bootstrapped one of a
// single-scope plugin, or one a multi-scope plugin addressed (a
// WorkspaceCtx, docs/plugins.md). It is opened on first reference and kept for the
// plugin's run: a delegated turn outlives the request that started it.
type checkout struct {
	loc workspace.Location

	// The checkout's configuration, resolved on first use (read_config, a
	// delegated turn): the same resolution a turn there starts from.
	cfgOnce sync.Once
	res     config.Resolved
	cfgErr  error
	config  configCache
}

// checkouts is a plugin run's registry of checkouts, keyed by workspace ID
// and root: two worktrees of one repository share an ID, and a registry
// keyed by the ID alone would run one tree's turns against the other's
// files.
type checkouts struct {
	mu sync.Mutex
	m  map[workspace.Location]*checkout
}

func newCheckout(loc workspace.Location) *checkout {
	return &checkout{loc: loc, config: configCache{m: map[string][]byte{}}}
}

// get returns the checkout at loc, opening it on first reference.
func (cs *checkouts) get(loc workspace.Location) *checkout {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c, ok := cs.m[loc]; ok {
		return c
	}
	c := newCheckout(loc)
	cs.m[loc] = c
	return c
}

// reopen forgets the checkout at loc: its next reference opens it again
// and resolves its configuration anew (after a trust). A turn already
// running keeps the configuration it started with.
func (cs *checkouts) reopen(loc workspace.Location) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.m, loc)
}

// configFor resolves (once) the configuration of c.
func (s *session) configFor(ctx context.Context, c *checkout) (config.Resolved, error) {
	c.cfgOnce.Do(func() {
		if s.single != nil && c == s.single {
			c.res = s.res
			return
		}
		c.res, c.cfgErr = s.h.loader.Load(ctx, ports.ConfigSource{
			UserConfigDir: s.in.UserConfigDir, WorkspaceRoot: c.loc.Root, LaunchDir: c.loc.Root,
			Env: s.in.Environ, Overrides: s.in.Overrides,
		})
	})
	return c.res, c.cfgErr
}

// errNoWorkspaceRef answers a multi-scope plugin's request without one.
var errNoWorkspaceRef = errors.New(`this plugin declares workspace_scope "multi": add "workspace": {"id": ..., "root": ...} to the request (list_workspaces names them)`)

// address returns the checkout a data or mutation request is about: the
// bootstrapped one for a single-scope plugin, the one the request's
// WorkspaceRef names for a multi-scope plugin (the rules: root may
// be left out only when the workspace has exactly one live checkout).
// A bad reference changes nothing.
func (s *session) address(ctx context.Context, ref *workspace.Ref) (*checkout, error) {
	if s.scope != workspace.ScopeMulti {
		return s.single, nil
	}
	if ref == nil {
		return nil, errNoWorkspaceRef
	}
	loc, err := s.resolveRef(ctx, *ref)
	if err != nil {
		return nil, err
	}
	return s.checkouts.get(loc), nil
}

// resolveRef checks a WorkspaceRef against the roots registry: a known
// ID; a root that is a live checkout of it, or none when there is exactly
// one, or when the ID is the default workspace's.
func (s *session) resolveRef(ctx context.Context, ref workspace.Ref) (workspace.Location, error) {
	id, err := workspace.ValidateRef(ref)
	if err != nil {
		return workspace.Location{}, err
	}
	// The default workspace (jp used outside any workspace) has no
	// checkout: it is addressed by its ID alone.
	if id == workspace.DefaultID && ref.Root == "" {
		return workspace.Default(), nil
	}
	k, err := s.h.reg.Lookup(ctx, id)
	if errors.Is(err, ports.ErrNotFound) {
		return workspace.Location{}, fmt.Errorf("%w: workspace %s is not known on this machine (list_workspaces lists the known ones)", workspace.ErrBadRef, id)
	}
	if err != nil {
		return workspace.Location{}, err
	}
	live := k.LiveCheckouts()
	if ref.Root == "" {
		c, err := workspace.SelectCheckout(k)
		var amb *workspace.AmbiguousError
		switch {
		case errors.As(err, &amb):
			return workspace.Location{}, fmt.Errorf("%w: workspace %s has %d live checkouts (%s): name one as workspace.root",
				workspace.ErrBadRef, id, len(amb.Paths), strings.Join(amb.Paths, ", "))
		case err != nil:
			return workspace.Location{}, fmt.Errorf("%w: %v", workspace.ErrBadRef, err)
		}
		return workspace.Location{ID: id, Root: c.Path}, nil
	}
	root := ref.Root
	if !hasCheckout(live, root) {
		// The same directory through a symlink is the same checkout.
		if canon, cerr := s.h.reg.Canonical(root); cerr == nil && hasCheckout(live, canon) {
			root = canon
		} else {
			return workspace.Location{}, notACheckout(k, ref.Root, live)
		}
	}
	return workspace.Location{ID: id, Root: root}, nil
}

func hasCheckout(live []workspace.CheckoutStatus, root string) bool {
	for _, c := range live {
		if c.Path == root {
			return true
		}
	}
	return false
}

// notACheckout explains why root does not address workspace k.
func notACheckout(k workspace.Known, root string, live []workspace.CheckoutStatus) error {
	paths := make([]string, len(live))
	for i, c := range live {
		paths[i] = c.Path
	}
	for _, c := range k.Checkouts {
		if c.Path == root {
			return fmt.Errorf("%w: %s was a checkout of workspace %s but no longer holds it (live checkouts: %s)",
				workspace.ErrBadRef, root, k.ID, listOrNone(paths))
		}
	}
	return fmt.Errorf("%w: %s is not a checkout of workspace %s (live checkouts: %s)", workspace.ErrBadRef, root, k.ID, listOrNone(paths))
}

// addressedTypes are the data and mutation requests, which name a
// checkout: a multi-scope plugin must send workspace on each of them.
var addressedTypes = map[string]bool{
	plugin.TypeListConversations: true, plugin.TypeReadEvents: true, plugin.TypeReadConfig: true,
	plugin.TypeReadDraft: true, plugin.TypeWriteDraft: true, plugin.TypeCreateConversation: true,
	plugin.TypeSetTitle: true, plugin.TypeArchive: true, plugin.TypeUnarchive: true,
	plugin.TypeLock: true, plugin.TypeUnlock: true, plugin.TypeQuery: true, plugin.TypeInterrupt: true,
	plugin.TypePushEvents: true, plugin.TypeContextMeter: true, plugin.TypeCompact: true,
	plugin.TypeRewind: true, plugin.TypeTrust: true,
}

// listOrNone is names joined with commas, or "none".
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
