package fsstore

import (
	"errors"
	"testing"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// A turn's first append reuses the events the turn read, but only while
// the files are as they were read: what another process wrote meanwhile
// is checked against (here, its event ID cannot be reused).
func TestReadCacheSeesAnotherWriter(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "first", 1)...)
	if _, err := sc.s.Events(t.Context(), sc.loc, id); err != nil {
		t.Fatal(err)
	}
	other, err := New(sc.s.DataDir(), sc.clock)
	if err != nil {
		t.Fatal(err)
	}
	theirs := storetest.NewEventMaker("theirs-", storetest.Start)
	start := theirs.TurnStart(sc.root)
	if err := other.Append(t.Context(), sc.loc, id, start); err != nil {
		t.Fatal(err)
	}
	err = sc.s.Append(t.Context(), sc.loc, id, start)
	if !errors.Is(err, conversation.ErrInvariant) {
		t.Fatalf("appending an event ID another process appended meanwhile: %v, want the duplicate refused", err)
	}
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.ID != start.ID {
		t.Fatalf("Events after another writer ends with %q, want %q", last.ID, start.ID)
	}
}
