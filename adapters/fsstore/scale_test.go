package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"errors"
	"path/filepath"
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

// A turn persisted event by event, as jp does, fsyncs each event's log
// line once and groups the turn end's writes: the user-local metadata.json
// and events.json are replaced and their directory synced once, and so
// are the checkout copy's.
func TestTurnFsyncs(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "warm up", 0)...)
	turn := sc.ev.Turn(sc.root, "q", 1) // start, request, call, result, message, end
	before := sc.s.Syncs()
	for _, e := range turn {
		sc.append(t, sc.loc, id, e)
	}
	// turn_start: the new log and its directory, metadata.json and its
	// directory (4); request, call, result, message: one each (4);
	// turn_end: metadata.json, events.json, the directory (3), the
	// checkout's events.json, metadata.json, its directory (3).
	got := sc.s.Syncs() - before
	t.Logf("%d fsyncs for a turn of %d events", got, len(turn))
	if got > 14 {
		t.Errorf("a turn of %d events made %d fsyncs, want at most 14", len(turn), got)
	}
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 4+len(turn) {
		t.Fatalf("%d events after the turn, want %d", len(evs), 4+len(turn))
	}
	m, err := sc.s.Get(t.Context(), sc.loc, id)
	if err != nil || m.Metadata.EventsCount != len(evs) {
		t.Fatalf("metadata after the turn: %+v, %v; want events_count %d", m.Metadata, err, len(evs))
	}
}

// A repair that folded a dead process's block in flight after the log's
// events, killed before it removed the log, leaves the log's events
// followed by that block in events.json: readers still see each event
// once, and the next writer removes the log.
func TestRepairCutBeforeLogRemoval(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	open := sc.ev.Turn(sc.root, "q", 1)
	open = open[:len(open)-2] // start, request, call, result: in the log
	sc.append(t, sc.loc, id, open...)
	conv := sc.siloConv(t, id)
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	block := sc.ev.Message("the block in flight")
	b, err := eventcodec.EncodeStoredEvents(append(evs, block), conversation.FormatJP)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(conv, "events.json"), b)
	fresh, err := New(sc.s.DataDir(), sc.clock)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fresh.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, got, append(open, block))
	if err := fresh.Append(t.Context(), sc.loc, id, sc.ev.Message("after")); err != nil {
		t.Fatal(err)
	}
	got, err = fresh.Events(t.Context(), sc.loc, id)
	if err != nil || conversation.Validate(got) != nil || len(got) != len(open)+2 {
		t.Fatalf("after the next append: %d events, %v, %v", len(got), err, conversation.Validate(got))
	}
}

// ScanEvents gives what Events gives, in every state the files can be
// in: folded, with a log, with a log a cut fold left behind, with a block
// in flight, and a projection-only conversation; and it stops at fn's
// error.
func TestScanEventsIsEvents(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	same := func(what string) {
		t.Helper()
		want, err := sc.s.Events(t.Context(), sc.loc, id)
		if err != nil {
			t.Fatal(err)
		}
		var got []conversation.Event
		if err := sc.s.ScanEvents(t.Context(), sc.loc, id, func(e conversation.Event) error {
			got = append(got, e)
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		storetest.SameEvents(t, got, want)
	}
	same("empty")
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "one", 1)...)
	same("folded")
	open := []conversation.Event{sc.ev.TurnStart(sc.root), sc.ev.ChatRequest("two")}
	sc.append(t, sc.loc, id, open...)
	same("with a log")
	conv := sc.siloConv(t, id)
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := eventcodec.EncodeStoredEvents(append(evs, sc.ev.Message("folded block")), conversation.FormatJP)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(conv, "events.json"), b)
	same("a cut repair")
	stop := errors.New("enough")
	n := 0
	err = sc.s.ScanEvents(t.Context(), sc.loc, id, func(conversation.Event) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Fatalf("ScanEvents with fn failing at the second event: %v after %d", err, n)
	}
	writeFile(t, filepath.Join(conv, "events.json"), []byte("[\n{\"type\":\"turn_start\"\n"))
	if err := sc.s.ScanEvents(t.Context(), sc.loc, id, func(conversation.Event) error { return nil }); !errors.As(err, new(*ports.CorruptError)) {
		t.Fatalf("ScanEvents of a cut events.json: %v, want a CorruptError", err)
	}
}
