package fsstore

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

var _ ports.EventRewriter = (*Store)(nil)

// RewriteEvents implements ports.EventRewriter. The log is folded first,
// so that no log is left whose events a reader could take for ones not
// folded yet (a crash between the two writes then loses nothing and
// resurrects nothing); events.json is then replaced atomically
// (rewriteEvents), metadata.json's events_count follows, and a non-local
// conversation's checkout copy is written again. A projection-only
// conversation is imported first, as Append does.
func (s *Store) RewriteEvents(ctx context.Context, loc workspace.Location, id conversation.ID, fn func([]conversation.Event) ([]conversation.Event, error)) error {
	p, unlock, err := s.begin(ctx, loc, id, "rewrite events")
	if err != nil {
		return err
	}
	defer unlock()
	st, err := s.streamFor(p)
	if err != nil {
		return fmt.Errorf("rewrite conversation %s: %w", id, err)
	}
	if !p.inSilo {
		if err := s.importConversation(loc, id, &p); err != nil {
			return err
		}
		st = nil
	}
	// Whatever happens below, the cached stream no longer describes the
	// files: the next writer loads them again.
	defer s.dropStream(p.siloConv)
	if _, err := s.fold(p.siloConv, st, p.format); err != nil {
		return fmt.Errorf("rewrite conversation %s: %w", id, err)
	}
	se, err := readSiloBase(p.siloConv)
	if err != nil {
		return fmt.Errorf("rewrite conversation %s: %w", id, err)
	}
	evs, err := fn(se.events)
	if err != nil {
		return err
	}
	stream, err := conversation.NewStream(evs)
	if err != nil {
		return fmt.Errorf("rewrite conversation %s: %w", id, err)
	}
	meta, err := readMeta(p.siloConv, id, p.archived())
	if err != nil {
		return fmt.Errorf("rewrite conversation %s: %w", id, err)
	}
	if err := s.rewriteEvents(p.siloConv, evs, p.format); err != nil {
		return fmt.Errorf("rewrite conversation %s: %w", id, err)
	}
	meta.EventsCount = stream.Len()
	if err := s.replaceJSON(filepath.Join(p.siloConv, metadataFile), meta, 0o600); err != nil {
		return fmt.Errorf("rewrite conversation %s: %w", id, err)
	}
	local, err := readLocal(p.siloConv)
	if err != nil {
		return err
	}
	if local.Local || loc.Root == "" {
		return nil
	}
	return checkoutCopy(id, s.projectFiles(p.projConv, id, p.siloConv, nil))
}
