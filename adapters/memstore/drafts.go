package memstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

func draftNotFound(id conversation.ID) error {
	return &ports.NotFoundError{What: "draft of conversation " + string(id)}
}

// DraftPath is empty: in-memory drafts have no file.
func (s *Store) DraftPath(workspace.Location, conversation.ID) string { return "" }

// ReadDraft returns the draft; a missing one is a *ports.NotFoundError.
func (s *Store) ReadDraft(ctx context.Context, loc workspace.Location, id conversation.ID) (ports.Draft, error) {
	c, _, unlock, err := s.begin(ctx, loc, id, "read draft")
	if err != nil {
		return ports.Draft{}, err
	}
	defer unlock()
	if c == nil || c.draft == nil {
		return ports.Draft{}, draftNotFound(id)
	}
	return *c.draft, nil
}

// WriteDraft replaces the draft; with ifRevision set, the draft must still
// have it (else the error wraps ports.ErrRevisionMismatch).
func (s *Store) WriteDraft(ctx context.Context, loc workspace.Location, id conversation.ID, text, ifRevision string) (string, error) {
	c, _, unlock, err := s.begin(ctx, loc, id, "write draft")
	if err != nil {
		return "", err
	}
	defer unlock()
	if ifRevision != "" {
		cur := "(none)"
		if c != nil && c.draft != nil {
			cur = c.draft.Revision
		}
		if cur != ifRevision {
			return "", fmt.Errorf("write draft of conversation %s: it has revision %s, not %s: %w", id, cur, ifRevision, ports.ErrRevisionMismatch)
		}
	}
	c, err = s.materializeLocked(loc, id)
	if err != nil {
		return "", err
	}
	s.revs++
	c.draft = &ports.Draft{Text: text, Revision: "m" + strconv.FormatUint(s.revs, 10)}
	return c.draft.Revision, nil
}

// DeleteDraft removes the draft; a missing draft is not an error.
func (s *Store) DeleteDraft(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	c, _, unlock, err := s.begin(ctx, loc, id, "delete draft")
	if err != nil {
		return err
	}
	defer unlock()
	if c != nil {
		c.draft = nil
	}
	return nil
}
