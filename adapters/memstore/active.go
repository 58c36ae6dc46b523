package memstore

import (
	"context"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

// Active implements ports.ConversationStore.
func (s *Store) Active(ctx context.Context, loc workspace.Location) (conversation.ID, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active[activeKey{loc.ID, loc.Root}], nil
}

// SetActive implements ports.ConversationStore.
func (s *Store) SetActive(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := conversation.ParseID(string(id)); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active == nil {
		s.active = map[activeKey]conversation.ID{}
	}
	k := activeKey{loc.ID, loc.Root}
	if old := s.active[k]; old != "" && old != id {
		s.active[activeKey{loc.ID, loc.Root + "\x00previous"}] = old
	}
	s.active[k] = id
	return nil
}

// Previous implements ports.ConversationStore.
func (s *Store) Previous(ctx context.Context, loc workspace.Location) (conversation.ID, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active[activeKey{loc.ID, loc.Root + "\x00previous"}], nil
}

// activeKey is a checkout of a workspace.
type activeKey struct {
	ws   workspace.ID
	root string
}
