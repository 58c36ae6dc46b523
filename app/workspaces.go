package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"sync/atomic"

	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Workspaces is the use case behind jp init, jp workspace and the
// -w/--workspace selection every workspace command goes through.
type Workspaces struct {
	reg   ports.WorkspaceRegistry
	store ports.ConversationStore
	// Log receives the warning of a checkout registration that failed
	// (at info level: jp -v shows it); nil discards it.
	Log *slog.Logger

	warned atomic.Bool
}

// NewWorkspaces builds the use case.
func NewWorkspaces(reg ports.WorkspaceRegistry, store ports.ConversationStore) *Workspaces {
	return &Workspaces{reg: reg, store: store}
}

// Init creates a workspace in dir and registers its checkout.
func (w *Workspaces) Init(ctx context.Context, dir string) (ports.Found, error) {
	f, err := w.reg.Init(ctx, dir)
	if err != nil {
		return ports.Found{}, err
	}
	if err := w.reg.Register(ctx, f); err != nil {
		return ports.Found{}, err
	}
	return f, nil
}

// TargetCWD is the -w value that means "the launch directory".
const TargetCWD = "cwd"

// Resolve picks the checkout a command works in (docs/storage.md), without
// writing anything: target is -w's value ("" or "cwd" for the launch
// directory, a workspace ID, or a path).
func (w *Workspaces) Resolve(ctx context.Context, target, launchDir string) (ports.Found, error) {
	switch {
	case target == "" || target == TargetCWD:
		f, err := w.reg.Find(ctx, launchDir)
		if errors.Is(err, ports.ErrNoWorkspace) {
			return ports.Found{}, &UserError{
				Msg: fmt.Sprintf("%s is not inside a jp workspace: run jp init to create one here, or pass -w ID|PATH", launchDir),
				Err: err,
			}
		}
		return f, err
	case workspace.LooksLikeID(target):
		id, _ := workspace.ParseID(target)
		k, err := w.reg.Lookup(ctx, id)
		if errors.Is(err, ports.ErrNotFound) {
			// A directory may be named like an ID; try it as a path.
			if f, ferr := w.reg.Find(ctx, target); ferr == nil {
				return f, nil
			}
			return ports.Found{}, &UserError{Msg: fmt.Sprintf("workspace %s is not known on this machine: list known workspaces with jp workspace ls", id), Err: err}
		}
		if err != nil {
			return ports.Found{}, err
		}
		c, err := workspace.SelectCheckout(k)
		if err != nil {
			return ports.Found{}, &UserError{Msg: err.Error(), Err: err}
		}
		return ports.Found{ID: id, Root: c.Path}, nil
	default:
		f, err := w.reg.Find(ctx, target)
		switch {
		case err == nil:
			return f, nil
		case errors.Is(err, ports.ErrNoWorkspace):
			return ports.Found{}, &UserError{Msg: fmt.Sprintf("%s is not inside a jp workspace: run jp init %s to create one", target, target), Err: err}
		case errors.Is(err, ports.ErrNotFound):
			return ports.Found{}, &UserError{Msg: fmt.Sprintf("-w %s is neither a known workspace ID nor a directory: list known workspaces with jp workspace ls", target), Err: err}
		}
		return ports.Found{}, err
	}
}

// Open resolves the checkout like Resolve and records it in the roots
// registry (creating the silo on first use). Commands that load a
// workspace call this; read-only listings call Resolve. Recording is best
// effort: on a read-only data directory jp conversation ls and show still
// work, and the failure is logged once (jp -v shows it); a command that
// then writes fails on its own write, naming it.
func (w *Workspaces) Open(ctx context.Context, target, launchDir string) (workspace.Location, error) {
	f, err := w.Resolve(ctx, target, launchDir)
	if err != nil {
		return workspace.Location{}, err
	}
	if err := w.record(ctx, f); err != nil {
		return workspace.Location{}, err
	}
	return workspace.Location{ID: f.ID, Root: f.Root}, nil
}

// record records the checkout f resolved to as used, best effort (see
// Open): only a cancelled ctx is an error.
func (w *Workspaces) record(ctx context.Context, f ports.Found) error {
	if err := w.reg.Register(ctx, f); err != nil {
		if ctx.Err() != nil {
			return err
		}
		if w.Log != nil && !w.warned.Swap(true) {
			// The registry's error names the checkout already.
			w.Log.Info("checkout not recorded; continuing", "err", err.Error())
		}
	}
	return nil
}

// Opened is a checkout chosen by OpenOrDefault.
type Opened struct {
	workspace.Location
	// FirstDefault: the location is the default workspace and it holds
	// nothing yet (its silo does not exist): the caller says so once.
	FirstDefault bool
	// DefaultDir is the default workspace's silo, when it is the one.
	DefaultDir string
}

// OpenOrDefault is Open for the commands that also work outside any
// workspace (jp query, jp conversation ...): with no -w, a launch
// directory that is in no workspace addresses the user-level default
// workspace (docs/storage.md, "Outside a workspace"). record false writes
// nothing (jp q --no-persist).
func (w *Workspaces) OpenOrDefault(ctx context.Context, target, launchDir string, record bool) (Opened, error) {
	f, err := w.Resolve(ctx, target, launchDir)
	if (target == "" || target == TargetCWD) && errors.Is(err, ports.ErrNoWorkspace) {
		o := Opened{Location: workspace.Default()}
		o.DefaultDir = filepath.Join(w.reg.DataDir(), "workspace", workspace.SiloName(workspace.DefaultSlug, workspace.DefaultID))
		if _, lerr := w.reg.Lookup(ctx, workspace.DefaultID); errors.Is(lerr, ports.ErrNotFound) {
			o.FirstDefault = true
		}
		return o, nil
	}
	if err != nil {
		return Opened{}, err
	}
	if record { // the checkout resolved once, not again by Open
		if err := w.record(ctx, f); err != nil {
			return Opened{}, err
		}
	}
	return Opened{Location: workspace.Location{ID: f.ID, Root: f.Root}}, nil
}

// WorkspaceView is one workspace as jp workspace ls shows it.
type WorkspaceView struct {
	workspace.Known
	Conversations int  `json:"conversations"`
	Current       bool `json:"current"`
}

// List returns every known workspace with checkouts and counts. It writes
// nothing. launchDir marks the workspace jp was started in, if any.
func (w *Workspaces) List(ctx context.Context, launchDir string) ([]WorkspaceView, error) {
	known, err := w.reg.Known(ctx)
	if err != nil {
		return nil, err
	}
	var cur workspace.ID
	if f, err := w.reg.Find(ctx, launchDir); err == nil {
		cur = f.ID
	}
	out := make([]WorkspaceView, 0, len(known))
	for _, k := range known {
		v, err := w.view(ctx, k)
		if err != nil {
			return nil, err
		}
		v.Current = k.ID == cur
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slug+string(out[i].ID) < out[j].Slug+string(out[j].ID) })
	return out, nil
}

// Show returns one workspace, selected like -w (without requiring a live
// checkout when given an ID).
func (w *Workspaces) Show(ctx context.Context, target, launchDir string) (WorkspaceView, error) {
	var id workspace.ID
	if workspace.LooksLikeID(target) {
		id = workspace.ID(target)
	} else {
		f, err := w.Resolve(ctx, target, launchDir)
		if err != nil {
			return WorkspaceView{}, err
		}
		id = f.ID
	}
	k, err := w.reg.Lookup(ctx, id)
	if err != nil {
		if errors.Is(err, ports.ErrNotFound) {
			return WorkspaceView{}, &UserError{Msg: fmt.Sprintf("workspace %s is not known on this machine: list known workspaces with jp workspace ls", id), Err: err}
		}
		return WorkspaceView{}, err
	}
	return w.view(ctx, k)
}

func (w *Workspaces) view(ctx context.Context, k workspace.Known) (WorkspaceView, error) {
	workspace.SortCheckouts(k.Checkouts)
	n, err := w.count(ctx, k.ID)
	if err != nil {
		return WorkspaceView{}, fmt.Errorf("count conversations of workspace %s: %w", k.ID, err)
	}
	return WorkspaceView{Known: k, Conversations: n}, nil
}

// counter is what a store offers when it can count a silo's conversations
// without reading them (fsstore: one directory read).
type counter interface {
	CountConversations(ctx context.Context, id workspace.ID) (int, error)
}

func (w *Workspaces) count(ctx context.Context, id workspace.ID) (int, error) {
	if c, ok := w.store.(counter); ok {
		return c.CountConversations(ctx, id)
	}
	list, err := w.store.List(ctx, workspace.Location{ID: id})
	return len(list), err
}
