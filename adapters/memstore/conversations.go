package memstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jpcli/jp/adapters/eventcodec"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// begin starts an operation on one conversation: it validates the IDs,
// takes the store's lock and finds the conversation (a *ports.NotFoundError
// when it is nowhere). On success the caller must call unlock.
func (s *Store) begin(ctx context.Context, loc workspace.Location, id conversation.ID, op string) (c *conv, p *projected, unlock func(), err error) {
	if err := conversation.CheckAddress(loc, id); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	s.mu.Lock()
	c, p = s.lookupLocked(loc, id)
	if c == nil && p == nil {
		s.mu.Unlock()
		return nil, nil, nil, ports.ConversationNotFound(id)
	}
	return c, p, s.mu.Unlock, nil
}

// lookupLocked finds a conversation in the silo and in loc.Root's
// projection; either may be nil.
func (s *Store) lookupLocked(loc workspace.Location, id conversation.ID) (*conv, *projected) {
	var c *conv
	if sl := s.silos[loc.ID]; sl != nil {
		c = sl.convs[id]
	}
	var p *projected
	if loc.Root != "" {
		p = s.proj[loc.Root][id]
	}
	return c, p
}

// materializeLocked returns the silo copy of a conversation, importing a
// projection-only one.
func (s *Store) materializeLocked(loc workspace.Location, id conversation.ID) (*conv, error) {
	c, p := s.lookupLocked(loc, id)
	if c != nil {
		return c, nil
	}
	if p == nil {
		return nil, ports.ConversationNotFound(id)
	}
	stream, err := conversation.NewStream(p.events)
	if err != nil {
		return nil, &ports.CorruptError{Path: "memory:" + loc.Root + "/" + string(id), Err: err}
	}
	c = &conv{meta: p.meta, events: copyEvents(p.events), stream: stream}
	s.ensureSiloLocked(loc.ID, loc.Root).convs[id] = c
	return c, nil
}

func decodeLocal(b []byte) (conversation.LocalMetadata, error) {
	var m conversation.LocalMetadata
	if b == nil {
		return m, nil
	}
	err := json.Unmarshal(b, (*eventcodec.LocalJSON)(&m))
	return m, err
}

// summaryLocked builds a listing row, with last_root liveness derived from
// the directories known to hold the workspace.
func (s *Store) summaryLocked(loc workspace.Location, id conversation.ID, c *conv, p *projected) (conversation.Summary, error) {
	sum := conversation.Summary{ID: id}
	if c == nil {
		m, err := roundTripMeta(p.meta)
		sum.Metadata, sum.Storage = m, conversation.StorageWorkspaceOnly
		return sum, err
	}
	m, err := roundTripMeta(c.meta)
	if err != nil {
		return sum, err
	}
	local, err := decodeLocal(c.local)
	if err != nil {
		return sum, err
	}
	sum.Metadata, sum.Local = m, local.Local
	sum.Storage = conversation.StorageUserLocal
	if p != nil {
		sum.Storage = conversation.StorageBoth
	}
	if lr := local.LastRoot; lr != nil {
		live := s.dirs[lr.Path] == loc.ID
		lr.Live = &live
		sum.LastRoot = lr
	}
	return sum, nil
}

// List returns the conversations visible from loc, ordered by ID.
func (s *Store) List(ctx context.Context, loc workspace.Location) ([]conversation.Summary, error) {
	if err := loc.Check(); err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var pm map[conversation.ID]*projected
	if loc.Root != "" {
		pm = s.proj[loc.Root]
	}
	var out []conversation.Summary
	add := func(id conversation.ID, c *conv, p *projected) error {
		sum, err := s.summaryLocked(loc, id, c, p)
		out = append(out, sum)
		return err
	}
	sl := s.silos[loc.ID]
	if sl != nil {
		for id, c := range sl.convs {
			if err := add(id, c, pm[id]); err != nil {
				return nil, fmt.Errorf("list conversations: %w", err)
			}
		}
	}
	for id, p := range pm {
		if sl == nil || sl.convs[id] == nil {
			if err := add(id, nil, p); err != nil {
				return nil, fmt.Errorf("list conversations: %w", err)
			}
		}
	}
	conversation.SortByID(out)
	return out, nil
}

// Get returns one conversation's summary.
func (s *Store) Get(ctx context.Context, loc workspace.Location, id conversation.ID) (conversation.Summary, error) {
	c, p, unlock, err := s.begin(ctx, loc, id, "get conversation")
	if err != nil {
		return conversation.Summary{}, err
	}
	defer unlock()
	return s.summaryLocked(loc, id, c, p)
}

// ScanEvents calls fn with each event Events returns.
func (s *Store) ScanEvents(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error) error {
	evs, err := s.Events(ctx, loc, id)
	if err != nil {
		return err
	}
	for _, e := range evs {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Events returns the conversation's events in order.
func (s *Store) Events(ctx context.Context, loc workspace.Location, id conversation.ID) ([]conversation.Event, error) {
	c, p, unlock, err := s.begin(ctx, loc, id, "read events")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if c != nil {
		return copyEvents(c.events), nil
	}
	return copyEvents(p.events), nil
}

// Create makes a new, empty conversation.
func (s *Store) Create(ctx context.Context, loc workspace.Location, nc ports.NewConversation) (conversation.ID, error) {
	if err := loc.Check(); err != nil {
		return "", fmt.Errorf("create conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := s.ensureSiloLocked(loc.ID, loc.Root)
	now := s.clock.Now().UTC()
	id := conversation.NewID(now)
	for sl.convs[id] != nil || (loc.Root != "" && s.proj[loc.Root][id] != nil) {
		id = id.Next()
	}
	stream, _ := conversation.NewStream(nil)
	c := &conv{meta: conversation.Metadata{Title: nc.Title, CreatedAt: now, LastActivatedAt: now}, stream: stream}
	if nc.Local {
		c.local = []byte(`{"local":true}`)
	}
	sl.convs[id] = c
	if !nc.Local {
		s.projectLocked(loc.Root, id, c.meta, nil)
	}
	return id, nil
}

// CreateFrom makes a conversation of the events fill adds: they are
// checked first, and the conversation is made only when all are valid.
func (s *Store) CreateFrom(ctx context.Context, loc workspace.Location, nc ports.NewConversation, fill func(add func(conversation.Event) error) error) (conversation.ID, error) {
	stream, _ := conversation.NewStream(nil)
	var evs []conversation.Event
	if err := fill(func(e conversation.Event) error {
		if err := stream.Apply(e); err != nil {
			return fmt.Errorf("create conversation: event %q: %w", e.ID, err)
		}
		evs = append(evs, e)
		return nil
	}); err != nil {
		return "", err
	}
	id, err := s.Create(ctx, loc, nc)
	if err != nil {
		return "", err
	}
	err = s.Append(ctx, loc, id, evs...)
	if err == nil && len(nc.Labels) > 0 {
		err = s.UpdateMetadata(ctx, loc, id, func(m *conversation.Metadata) error {
			m.SetLabelMap(nc.Labels)
			return nil
		})
	}
	if err != nil {
		_ = s.Remove(ctx, loc, id)
		return "", err
	}
	return id, nil
}

// isLocal reports whether a silo conversation is --local.
func isLocal(c *conv) bool {
	m, err := decodeLocal(c.local)
	return err == nil && m.Local
}

// syncLocked re-projects a non-local conversation into loc.Root.
func (s *Store) syncLocked(loc workspace.Location, id conversation.ID, c *conv) {
	if !isLocal(c) {
		s.projectLocked(loc.Root, id, c.meta, c.events)
	}
}

// Append checks evs against the stream invariants and adds them; nothing
// changes when one is invalid.
func (s *Store) Append(ctx context.Context, loc workspace.Location, id conversation.ID, evs ...conversation.Event) error {
	c, p, unlock, err := s.begin(ctx, loc, id, "append events")
	if err != nil {
		return err
	}
	defer unlock()
	if len(evs) == 0 {
		return nil
	}
	stored := make([]conversation.Event, len(evs))
	for i, e := range evs {
		var err error
		if stored[i], err = roundTripEvent(e); err != nil {
			return fmt.Errorf("append to conversation %s: encode event %q: %w", id, e.ID, err)
		}
	}
	var stream *conversation.Stream
	if c != nil {
		stream = c.stream
	} else {
		if stream, err = conversation.NewStream(p.events); err != nil {
			return fmt.Errorf("append to conversation %s: %w", id, &ports.CorruptError{Path: "memory:" + loc.Root + "/" + string(id), Err: err})
		}
	}
	for _, e := range evs {
		if err := stream.Apply(e); err != nil {
			if c != nil {
				c.stream, _ = conversation.NewStream(c.events)
			}
			return fmt.Errorf("append to conversation %s: event %q: %w", id, e.ID, err)
		}
	}
	c, err = s.materializeLocked(loc, id)
	if err != nil {
		return err
	}
	c.stream = stream
	c.events = append(c.events, stored...)
	c.meta.EventsCount = stream.Len()
	c.meta.LastActivatedAt = s.clock.Now().UTC()
	s.syncLocked(loc, id, c)
	return nil
}

// UpdateMetadata rewrites the metadata through fn (and its projection).
func (s *Store) UpdateMetadata(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(*conversation.Metadata) error) error {
	c, p, unlock, err := s.begin(ctx, loc, id, "update metadata")
	if err != nil {
		return err
	}
	defer unlock()
	var m conversation.Metadata
	if c != nil {
		m, err = roundTripMeta(c.meta)
	} else {
		m, err = roundTripMeta(p.meta)
	}
	if err == nil {
		err = fn(&m)
	}
	if err == nil {
		m, err = roundTripMeta(m)
	}
	if err != nil {
		return fmt.Errorf("update metadata of conversation %s: %w", id, err)
	}
	if c, err = s.materializeLocked(loc, id); err != nil {
		return err
	}
	c.meta = m
	s.syncLocked(loc, id, c)
	return nil
}

// LocalMetadata reads the machine-local metadata (zero when absent).
func (s *Store) LocalMetadata(ctx context.Context, loc workspace.Location, id conversation.ID) (conversation.LocalMetadata, error) {
	c, _, unlock, err := s.begin(ctx, loc, id, "read local metadata")
	if err != nil {
		return conversation.LocalMetadata{}, err
	}
	defer unlock()
	if c == nil {
		return conversation.LocalMetadata{}, nil
	}
	return decodeLocal(c.local)
}

// UpdateLocalMetadata rewrites the machine-local metadata through fn,
// keeping keys it does not know.
func (s *Store) UpdateLocalMetadata(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(*conversation.LocalMetadata) error) error {
	c, _, unlock, err := s.begin(ctx, loc, id, "update local metadata")
	if err != nil {
		return err
	}
	defer unlock()
	var m conversation.LocalMetadata
	if c != nil {
		m, err = decodeLocal(c.local)
	}
	if err == nil {
		err = fn(&m)
	}
	var b []byte
	if err == nil {
		b, err = json.Marshal(eventcodec.LocalJSON(m))
	}
	if err != nil {
		return fmt.Errorf("update local metadata of conversation %s: %w", id, err)
	}
	if c, err = s.materializeLocked(loc, id); err != nil {
		return err
	}
	c.local = b
	return nil
}

// Remove deletes the conversation from the silo and loc.Root's projection.
func (s *Store) Remove(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	c, p, unlock, err := s.begin(ctx, loc, id, "remove conversation")
	if err != nil {
		return err
	}
	defer unlock()
	if c != nil {
		delete(s.silos[loc.ID].convs, id)
	}
	if p != nil {
		delete(s.proj[loc.Root], id)
	}
	return nil
}
