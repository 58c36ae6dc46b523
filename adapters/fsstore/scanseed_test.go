package fsstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// scanAll is ScanEvents into a slice.
func scanAll(t *testing.T, s *Store, sc *scene, id conversation.ID) []conversation.Event {
	t.Helper()
	var evs []conversation.Event
	if err := s.ScanEvents(t.Context(), sc.loc, id, func(e conversation.Event) error {
		evs = append(evs, e)
		return nil
	}); err != nil {
		t.Fatalf("ScanEvents: %v", err)
	}
	return evs
}

// A scan by the holder of the conversation's lock leaves the state the
// next append checks against, so that append does not read the
// conversation again; a scan without the lock (jp conversation show)
// leaves nothing; and the state is the same as one loaded from the files.
func TestScanUnderTheLockSeedsTheAppend(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	history := sc.ev.Turn(sc.root, "q", 2)
	sc.append(t, sc.loc, id, history...)
	conv := sc.siloConv(t, id)

	fresh, err := New(sc.s.DataDir(), sc.clock)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, scanAll(t, fresh, sc, id), history)
	if fresh.cachedStream(conv) != nil {
		t.Fatalf("a scan without the lock left a stream state")
	}
	release, err := fresh.Lock(t.Context(), sc.loc, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, scanAll(t, fresh, sc, id), history)
	st := fresh.cachedStream(conv)
	if st == nil {
		t.Fatalf("a scan under the lock left no stream state")
	}
	if st.stream.Len() != len(history) || st.stream.InTurn() {
		t.Fatalf("seeded state: %d events, in turn %v; want %d, false", st.stream.Len(), st.stream.InTurn(), len(history))
	}
	// The seeded state checks as a loaded one does: a result for a call
	// nobody made is refused, a new turn is taken.
	if err := fresh.Append(t.Context(), sc.loc, id, sc.ev.TurnStart(sc.root), sc.ev.ToolResult(sc.ev.ToolCall("x"), "r")); !errors.Is(err, conversation.ErrInvariant) {
		t.Fatalf("append of an unknown call's result = %v, want an invariant error", err)
	}
	next := sc.ev.Turn(sc.root, "again", 1)
	if err := fresh.Append(t.Context(), sc.loc, id, next...); err != nil {
		t.Fatalf("append after a seeded scan: %v", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, scanAll(t, sc.s, sc, id), append(history, next...))
}

// Files a write repairs first (a log line cut by a crash) or refuses (a
// checkout copy that does not parse) are left to the write: a scan under
// the lock seeds nothing, and the write repairs or refuses as before.
func TestScanUnderTheLockLeavesRepairsToTheWrite(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	history := sc.ev.Turn(sc.root, "q", 0)
	sc.append(t, sc.loc, id, history...)
	conv := sc.siloConv(t, id)
	logPath := filepath.Join(conv, logFile)
	writeFile(t, logPath, []byte(`{"type":"turn_start","id":"cut`))

	fresh, err := New(sc.s.DataDir(), sc.clock)
	if err != nil {
		t.Fatal(err)
	}
	release, err := fresh.Lock(t.Context(), sc.loc, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = release() }()
	storetest.SameEvents(t, scanAll(t, fresh, sc, id), history)
	if fresh.cachedStream(conv) != nil {
		t.Fatalf("a scan of a log with a cut line seeded a stream state")
	}
	next := sc.ev.Turn(sc.root, "after", 0)
	if err := fresh.Append(t.Context(), sc.loc, id, next...); err != nil {
		t.Fatalf("append after a cut log line: %v", err)
	}
	if _, err := os.Stat(logPath); !os.IsNotExist(err) {
		t.Fatalf("the cut log was not repaired (folded and removed): %v", err)
	}

	// A checkout copy with conflict markers.
	proj := filepath.Join(sc.root, ".jp", "conversations", string(id), eventsFile)
	writeFile(t, proj, []byte("<<<<<<< HEAD\n[]\n=======\n[]\n>>>>>>> theirs\n"))
	again, err := New(sc.s.DataDir(), sc.clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	release2, err := again.Lock(t.Context(), sc.loc, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = release2() }()
	scanAll(t, again, sc, id)
	if again.cachedStream(conv) != nil {
		t.Fatalf("a scan with a checkout copy that does not parse seeded a stream state")
	}
	var ce *ports.CorruptError
	if err := again.Append(t.Context(), sc.loc, id, sc.ev.TurnStart(sc.root)); !errors.As(err, &ce) || ce.Path != proj {
		t.Fatalf("append with a broken checkout copy = %v, want a *ports.CorruptError naming %s", err, proj)
	}
}
