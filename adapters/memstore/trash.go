package memstore

import (
	"context"
	"fmt"
	"sort"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// trashed is a conversation in a workspace's trash.
type trashed struct {
	id conversation.ID
	c  *conv
	ts ports.TrashedConversation
}

// Trash implements ports.ConversationStore.
func (s *Store) Trash(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	c, p, unlock, err := s.begin(ctx, loc, id, "remove conversation")
	if err != nil {
		return err
	}
	defer unlock()
	if c == nil {
		stream, err := conversation.NewStream(p.events)
		if err != nil {
			return &ports.CorruptError{Path: "memory:" + loc.Root + "/" + string(id), Err: err}
		}
		c = &conv{meta: p.meta, events: copyEvents(p.events), stream: stream}
	}
	now := s.clock.Now().UTC()
	if s.trash == nil {
		s.trash = map[workspace.ID][]trashed{}
	}
	s.purgeLocked(loc.ID)
	s.trash[loc.ID] = append(s.trash[loc.ID], trashed{id: id, c: c, ts: ports.TrashedConversation{ID: id, Title: c.meta.Title, RemovedAt: now}})
	if sl := s.silos[loc.ID]; sl != nil {
		delete(sl.convs, id)
	}
	if p != nil {
		delete(s.proj[loc.Root], id)
	}
	return nil
}

// purgeLocked drops the entries kept longer than ports.TrashKeep.
func (s *Store) purgeLocked(ws workspace.ID) {
	if len(s.trash[ws]) == 0 {
		return
	}
	now := s.clock.Now()
	kept := s.trash[ws][:0]
	for _, t := range s.trash[ws] {
		if now.Sub(t.ts.RemovedAt) < ports.TrashKeep {
			kept = append(kept, t)
		}
	}
	s.trash[ws] = kept
}

// Trashed implements ports.ConversationStore.
func (s *Store) Trashed(ctx context.Context, loc workspace.Location) ([]ports.TrashedConversation, error) {
	if err := loc.Check(); err != nil {
		return nil, fmt.Errorf("list the trash: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.purgeLocked(loc.ID)
	var out []ports.TrashedConversation
	for _, t := range s.trash[loc.ID] {
		out = append(out, t.ts)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].RemovedAt.After(out[j].RemovedAt) })
	return out, nil
}

// Restore implements ports.ConversationStore.
func (s *Store) Restore(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	if err := conversation.CheckAddress(loc, id); err != nil {
		return fmt.Errorf("restore conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.purgeLocked(loc.ID)
	list := s.trash[loc.ID]
	at := -1
	for i, t := range list {
		if t.id == id && (at < 0 || t.ts.RemovedAt.After(list[at].ts.RemovedAt)) {
			at = i
		}
	}
	if at < 0 {
		return &ports.NotFoundError{What: "conversation " + string(id) + " in the trash", Hint: "list the trash with jp conversation restore --list"}
	}
	if c, p := s.lookupLocked(loc, id); c != nil || p != nil {
		return fmt.Errorf("restore conversation %s: it %w in this workspace (remove that one first to restore the trashed one)", id, ports.ErrExists)
	}
	c := list[at].c
	s.trash[loc.ID] = append(list[:at:at], list[at+1:]...)
	s.ensureSiloLocked(loc.ID, loc.Root).convs[id] = c
	s.syncLocked(loc, id, c)
	return nil
}
