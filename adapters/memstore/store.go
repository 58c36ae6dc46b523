// Package memstore keeps conversations, drafts, locks and the workspace
// registry in memory, for tests of app code and for runs that store
// nothing (jp q --no-persist). It follows the semantics of
// adapters/fsstore wherever a caller can observe them (the contract suite
// in adapters/storetest runs against both); the user-local silo, the
// checkouts' projections and the directories holding .jp/.id are maps.
package memstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"crypto/rand"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Interface assertions.
var (
	_ ports.ConversationStore = (*Store)(nil)
	_ ports.DraftStore        = (*Store)(nil)
	_ ports.WorkspaceRegistry = (*Store)(nil)
	_ ports.Locker            = (*Store)(nil)
)

// Store implements ports.ConversationStore, ports.DraftStore,
// ports.WorkspaceRegistry and ports.Locker in memory. It is safe for
// concurrent use.
type Store struct {
	clock ports.Clock
	rand  io.Reader

	mu     sync.Mutex
	silos  map[workspace.ID]*silo
	proj   map[string]map[conversation.ID]*projected // by checkout root
	dirs   map[string]workspace.ID                   // directories holding .jp/.id
	locks  map[lockKey]chan struct{}                 // held locks, closed on release
	active map[activeKey]conversation.ID             // per checkout (SetActive)
	trash  map[workspace.ID][]trashed                // Trash, oldest first
	revs   uint64
}

// silo is a workspace's user-local storage.
type silo struct {
	slug  string
	convs map[conversation.ID]*conv
	roots map[string]workspace.Checkout // by root key
}

// conv is a conversation in a silo.
type conv struct {
	meta   conversation.Metadata
	events []conversation.Event
	stream *conversation.Stream
	local  []byte // metadata.local.json; nil when absent
	draft  *ports.Draft
}

// projected is a conversation in a checkout's projection.
type projected struct {
	meta   conversation.Metadata
	events []conversation.Event
}

// New returns an empty store.
func New(clock ports.Clock) *Store {
	return &Store{
		clock: clock,
		rand:  rand.Reader,
		silos: map[workspace.ID]*silo{},
		proj:  map[string]map[conversation.ID]*projected{},
		dirs:  map[string]workspace.ID{},
		locks: map[lockKey]chan struct{}{},
	}
}

// SeedProjection places a conversation in root's projection, as if it had
// been committed by someone else: it is listed from root as workspace-only
// until a write imports it.
func (s *Store) SeedProjection(root string, id conversation.ID, meta conversation.Metadata, evs []conversation.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projectLocked(root, id, meta, evs)
}

// SetWorkspaceDir records that dir holds .jp/.id with id, like a clone or
// worktree of an existing workspace.
func (s *Store) SetWorkspaceDir(dir string, id workspace.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirs[filepath.Clean(dir)] = id
}

// RemoveWorkspaceDir forgets that dir holds a workspace, as if the checkout
// had been deleted; its registry record stays and turns not live.
func (s *Store) RemoveWorkspaceDir(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.dirs, filepath.Clean(dir))
}

// ensureSiloLocked returns workspace id's silo, creating it when needed.
func (s *Store) ensureSiloLocked(id workspace.ID, root string) *silo {
	if sl := s.silos[id]; sl != nil {
		return sl
	}
	slug := workspace.Slug("")
	if root != "" {
		slug = workspace.Slug(filepath.Base(root))
	}
	if id == workspace.DefaultID {
		slug = workspace.DefaultSlug
	}
	sl := &silo{slug: slug, convs: map[conversation.ID]*conv{}, roots: map[string]workspace.Checkout{}}
	s.silos[id] = sl
	return sl
}

// projectLocked replaces root's projection of a conversation.
func (s *Store) projectLocked(root string, id conversation.ID, meta conversation.Metadata, evs []conversation.Event) {
	if root == "" {
		return
	}
	m := s.proj[root]
	if m == nil {
		m = map[conversation.ID]*projected{}
		s.proj[root] = m
	}
	if c, err := roundTripMeta(meta); err == nil {
		meta = c
	}
	m[id] = &projected{meta: meta, events: copyEvents(evs)}
}

// roundTripEvent and roundTripMeta pass a value through its stored form
// (adapters/eventcodec), as the file store does, so that values read back
// compare alike in both stores (UTC times, no monotonic clock, no shared
// pointers).
func roundTripEvent(e conversation.Event) (conversation.Event, error) {
	var out conversation.Event
	b, err := eventcodec.Marshal(e)
	if err != nil {
		return out, fmt.Errorf("encode %T: %w", e, err)
	}
	if err := eventcodec.Unmarshal(b, &out); err != nil {
		return out, fmt.Errorf("decode %T: %w", e, err)
	}
	return out, nil
}

func roundTripMeta(m conversation.Metadata) (conversation.Metadata, error) {
	var out conversation.Metadata
	b, err := eventcodec.MarshalMetadata(m)
	if err != nil {
		return out, fmt.Errorf("encode %T: %w", m, err)
	}
	if err := eventcodec.UnmarshalMetadata(b, &out); err != nil {
		return out, fmt.Errorf("decode %T: %w", m, err)
	}
	return out, nil
}

// copyEvents round-trips events; they were validated on the way in.
func copyEvents(evs []conversation.Event) []conversation.Event {
	out := make([]conversation.Event, len(evs))
	for i, e := range evs {
		c, err := roundTripEvent(e)
		if err != nil {
			c = e
		}
		out[i] = c
	}
	return out
}
