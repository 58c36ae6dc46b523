package memstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

var _ ports.EventRewriter = (*Store)(nil)

// RewriteEvents implements ports.EventRewriter: the events fn returns
// replace the conversation's, or nothing changes.
func (s *Store) RewriteEvents(ctx context.Context, loc workspace.Location, id conversation.ID, fn func([]conversation.Event) ([]conversation.Event, error)) error {
	_, _, unlock, err := s.begin(ctx, loc, id, "rewrite events")
	if err != nil {
		return err
	}
	defer unlock()
	c, err := s.materializeLocked(loc, id)
	if err != nil {
		return err
	}
	// Events another version stored without an ID get their made-up
	// one, as a file store's reader gives them.
	evs := slices.Clone(c.events)
	conversation.FillIDs(evs)
	evs, err = fn(evs)
	if err != nil {
		return err
	}
	stream, err := conversation.NewStream(evs)
	if err != nil {
		return fmt.Errorf("rewrite conversation %s: %w", id, err)
	}
	c.events, c.stream = evs, stream
	c.meta.EventsCount = stream.Len()
	s.syncLocked(loc, id, c)
	return nil
}
