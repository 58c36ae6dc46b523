package memstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Canonical returns the absolute, cleaned form of dir (there are no
// symlinks in memory).
func (s *Store) Canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve directory %s: %w", dir, err)
	}
	return abs, nil
}

// Init records dir as holding a new workspace; a directory that already
// holds one is refused with an error wrapping ports.ErrExists.
func (s *Store) Init(ctx context.Context, dir string) (ports.Found, error) {
	if err := ctx.Err(); err != nil {
		return ports.Found{}, err
	}
	root, err := s.Canonical(dir)
	if err != nil {
		return ports.Found{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.dirs[root]; ok {
		return ports.Found{}, &ports.WorkspaceExistsError{Root: root, ID: id}
	}
	id, err := workspace.NewID(s.rand)
	if err != nil {
		return ports.Found{}, fmt.Errorf("init workspace in %s: %w", root, err)
	}
	s.dirs[root] = id
	return ports.Found{ID: id, Root: root}, nil
}

// Find walks up from dir to the nearest directory recorded as holding a
// workspace; ports.ErrNoWorkspace when there is none.
func (s *Store) Find(ctx context.Context, dir string) (ports.Found, error) {
	if err := ctx.Err(); err != nil {
		return ports.Found{}, err
	}
	start, err := s.Canonical(dir)
	if err != nil {
		return ports.Found{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for d := start; ; {
		if id, ok := s.dirs[d]; ok {
			return ports.Found{ID: id, Root: d}, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return ports.Found{}, fmt.Errorf("find workspace from %s: %w (no .jp/.id here or above; run jp init)", start, ports.ErrNoWorkspace)
}

// ReadID returns the workspace ID recorded for root.
func (s *Store) ReadID(ctx context.Context, root string) (workspace.ID, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.dirs[filepath.Clean(root)]; ok {
		return id, nil
	}
	return "", fmt.Errorf("read workspace ID of %s: %w", root, ports.ErrNoWorkspace)
}

// Register upserts the checkout's record with last_used = now, creating
// the silo when needed.
func (s *Store) Register(ctx context.Context, f ports.Found) error {
	if err := (workspace.Location{ID: f.ID, Root: f.Root}).Check(); err != nil {
		return fmt.Errorf("register checkout: %w", err)
	}
	if f.Root == "" {
		return errors.New("register checkout: root is empty")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := s.ensureSiloLocked(f.ID, f.Root)
	sl.roots[workspace.RootKey(f.Root)] = workspace.Checkout{Path: f.Root, LastUsed: s.clock.Now().UTC()}
	return nil
}

// Known lists every workspace with a silo, ordered like the file store
// (by silo name), with liveness derived now. It changes nothing.
func (s *Store) Known(ctx context.Context) ([]workspace.Known, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]workspace.Known, 0, len(s.silos))
	for id := range s.silos {
		out = append(out, s.knownLocked(id))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Silo < out[j].Silo })
	return out, nil
}

// Lookup returns one known workspace.
func (s *Store) Lookup(ctx context.Context, id workspace.ID) (workspace.Known, error) {
	if err := ctx.Err(); err != nil {
		return workspace.Known{}, err
	}
	if !workspace.LooksLikeID(string(id)) {
		return workspace.Known{}, fmt.Errorf("look up workspace: %w %q", workspace.ErrInvalidID, id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.silos[id] == nil {
		return workspace.Known{}, &ports.NotFoundError{What: "workspace " + string(id), Hint: "list known workspaces with jp workspace ls"}
	}
	return s.knownLocked(id), nil
}

func (s *Store) knownLocked(id workspace.ID) workspace.Known {
	sl := s.silos[id]
	k := workspace.Known{ID: id, Slug: sl.slug, Silo: workspace.SiloName(sl.slug, id), Checkouts: []workspace.CheckoutStatus{}}
	for _, c := range sl.roots {
		k.Checkouts = append(k.Checkouts, workspace.CheckoutStatus{Checkout: c, Live: s.dirs[c.Path] == id})
	}
	workspace.SortCheckouts(k.Checkouts)
	return k
}

// DataDir is empty: the store keeps nothing on disk.
func (s *Store) DataDir() string { return "" }

// CountConversations counts the conversations in a workspace's silo, for
// jp workspace ls. It is not part of a port.
func (s *Store) CountConversations(ctx context.Context, id workspace.ID) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sl := s.silos[id]; sl != nil {
		return len(sl.convs), nil
	}
	return 0, nil
}
