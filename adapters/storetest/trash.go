package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// testTrash: Trash removes a conversation as Remove does, Trashed lists
// it, Restore brings back its events, draft and projection; a
// projection-only conversation is trashed and restored too; a restore
// over a conversation that exists again is refused; entries older than
// ports.TrashKeep are gone.
func testTrash(t *testing.T, e *env) {
	keep := e.create(t, e.loc, ports.NewConversation{Title: "keep"})
	gone := e.create(t, e.loc, ports.NewConversation{Title: "gone"})
	e.appendEvents(t, e.loc, gone, e.ev.Turn(e.root, "x", 1)...)
	want := e.events(t, e.loc, gone)
	if _, err := e.Drafts.WriteDraft(e.ctx, e.loc, gone, "draft", ""); err != nil {
		t.Fatal(err)
	}
	trashAndCheck(t, e, keep, gone)
	restoreAndCheck(t, e, keep, gone, len(want))
	// Appending still works after a restore.
	e.appendEvents(t, e.loc, gone, e.ev.Turn(e.root, "y", 0)...)
	trashInAnotherCheckout(t, e, gone)

	// Entries kept longer than TrashKeep are deleted.
	e.Clock.Advance(ports.TrashKeep)
	if l, err := e.Conversations.Trashed(e.ctx, e.loc); err != nil || len(l) != 0 {
		t.Fatalf("Trashed after TrashKeep = %+v, %v; want empty", l, err)
	}
	var nf *ports.NotFoundError
	if err := e.Conversations.Restore(e.ctx, e.loc, gone); !errors.As(err, &nf) {
		t.Fatalf("Restore after TrashKeep = %v, want *ports.NotFoundError", err)
	}
}

// trashAndCheck trashes gone: it is gone from Get and List, and Trashed
// lists it with the time it was removed.
func trashAndCheck(t *testing.T, e *env, keep, gone conversation.ID) {
	if l, err := e.Conversations.Trashed(e.ctx, e.loc); err != nil || len(l) != 0 {
		t.Fatalf("Trashed before any Trash = %+v, %v; want empty", l, err)
	}
	if err := e.Conversations.Trash(e.ctx, e.loc, gone); err != nil {
		t.Fatalf("Trash: %v", err)
	}
	var nf *ports.NotFoundError
	if _, err := e.Conversations.Get(e.ctx, e.loc, gone); !errors.As(err, &nf) {
		t.Fatalf("Get after Trash = %v, want *ports.NotFoundError", err)
	}
	if l := e.list(t, e.loc); len(l) != 1 || l[0].ID != keep {
		t.Fatalf("List after Trash = %+v, want only %s", l, keep)
	}
	l, err := e.Conversations.Trashed(e.ctx, e.loc)
	if err != nil || len(l) != 1 || l[0].ID != gone || l[0].Title != "gone" || !l[0].RemovedAt.Equal(e.Clock.Now()) {
		t.Fatalf("Trashed = %+v, %v; want %s (gone) removed at %v", l, err, gone, e.Clock.Now())
	}
}

// restoreAndCheck restores gone (and refuses keep, not in the trash): its
// nEvents events, draft and summary are back, the trash is empty.
func restoreAndCheck(t *testing.T, e *env, keep, gone conversation.ID, nEvents int) {
	var nf *ports.NotFoundError
	if err := e.Conversations.Restore(e.ctx, e.loc, keep); !errors.As(err, &nf) {
		t.Fatalf("Restore of a conversation not in the trash = %v, want *ports.NotFoundError", err)
	}
	if err := e.Conversations.Restore(e.ctx, e.loc, gone); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got := e.events(t, e.loc, gone); len(got) != nEvents {
		t.Fatalf("events after Restore: %d, want %d", len(got), nEvents)
	}
	if d, err := e.Drafts.ReadDraft(e.ctx, e.loc, gone); err != nil || d.Text != "draft" {
		t.Fatalf("draft after Restore = %+v, %v", d, err)
	}
	if s := e.get(t, e.loc, gone); s.Storage == conversation.StorageWorkspaceOnly || s.Metadata.Title != "gone" {
		t.Fatalf("summary after Restore = %+v", s)
	}
	if l, _ := e.Conversations.Trashed(e.ctx, e.loc); len(l) != 0 {
		t.Fatalf("Trashed after Restore = %+v, want empty", l)
	}
}

// trashInAnotherCheckout: in another checkout, a restore over a
// conversation that exists again is refused, and a projection-only
// conversation is trashed and restored.
func trashInAnotherCheckout(t *testing.T, e *env, gone conversation.ID) {
	// A conversation that exists again is not overwritten.
	if err := e.Conversations.Trash(e.ctx, e.loc, gone); err != nil {
		t.Fatal(err)
	}
	theirs := conversation.ID("17000000000")
	b := e.NewCheckout(t, e.ws.ID)
	locB := e.loc
	locB.Root = b
	e.SeedProjection(t, b, gone, conversation.Metadata{Title: "again", CreatedAt: Start, LastActivatedAt: Start}, nil)
	if err := e.Conversations.Restore(e.ctx, locB, gone); !errors.Is(err, ports.ErrExists) {
		t.Fatalf("Restore over an existing conversation = %v, want ErrExists", err)
	}
	// A projection-only conversation goes to the trash and comes back.
	e.SeedProjection(t, b, theirs, conversation.Metadata{Title: "theirs", CreatedAt: Start, LastActivatedAt: Start}, nil)
	e.Clock.Advance(time.Second)
	if err := e.Conversations.Trash(e.ctx, locB, theirs); err != nil {
		t.Fatalf("Trash of a projection-only conversation: %v", err)
	}
	if _, ok := find(e.list(t, locB), theirs); ok {
		t.Fatal("projection-only conversation still listed after Trash")
	}
	l, err := e.Conversations.Trashed(e.ctx, locB)
	if err != nil || len(l) != 2 || l[0].ID != theirs || l[1].ID != gone {
		t.Fatalf("Trashed = %+v, %v; want %s then %s (most recent first)", l, err, theirs, gone)
	}
	if err := e.Conversations.Restore(e.ctx, locB, theirs); err != nil {
		t.Fatalf("Restore of a projection-only conversation: %v", err)
	}
	if s := e.get(t, locB, theirs); s.Metadata.Title != "theirs" {
		t.Fatalf("restored projection-only conversation = %+v", s)
	}
}
