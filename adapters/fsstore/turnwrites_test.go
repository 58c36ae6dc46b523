package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"os"
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// A turn as jp persists it (the events the turn asks for in a row are one
// append: start and request, then each tool call and result, then the
// answer and the turn's end): the turn's first append creates the log and
// rewrites metadata.json (4 fsyncs), each tool event fsyncs its line (1
// each), and the last append folds the log and syncs the checkout copy
// (6).
func TestBatchedTurnFsyncs(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "warm up", 0)...)
	turn := sc.ev.Turn(sc.root, "q", 1) // start, request, call, result, message, end
	before := sc.s.Syncs()
	sc.append(t, sc.loc, id, turn[:2]...)
	sc.append(t, sc.loc, id, turn[2])
	sc.append(t, sc.loc, id, turn[3])
	sc.append(t, sc.loc, id, turn[4:]...)
	if got := sc.s.Syncs() - before; got != 12 {
		t.Errorf("a turn of %d events in four appends made %d fsyncs, want 12", len(turn), got)
	}
}

// A queued reply dispatched at once appends the previous turn's end with
// the queued turn's start and request: one log write and one fsync, no
// fold, no metadata.json or checkout copy rewrite. Readers see every
// event meanwhile (events.json, then the log), and the queued turn's end
// folds both turns and syncs the checkout copy.
func TestQueuedDispatchAppend(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	conv := sc.siloConv(t, id)
	proj := filepath.Join(sc.root, ".jp", "conversations", string(id))
	first := sc.ev.Turn(sc.root, "first", 0) // start, request, message, end
	sc.append(t, sc.loc, id, first[:2]...)

	files := []string{
		filepath.Join(conv, "events.json"), filepath.Join(conv, "metadata.json"),
		filepath.Join(proj, "events.json"), filepath.Join(proj, "metadata.json"),
	}
	was := make([][]byte, len(files))
	for i, f := range files {
		was[i] = readFile(t, f)
	}
	second := sc.ev.Turn(sc.root, "queued", 0)
	dispatch := append(append([]conversation.Event{}, first[2:]...), second[:2]...)
	before := sc.s.Syncs()
	sc.append(t, sc.loc, id, dispatch...)
	if got := sc.s.Syncs() - before; got != 1 {
		t.Errorf("the queued dispatch made %d fsyncs, want 1 (the log's)", got)
	}
	for i, f := range files {
		if string(readFile(t, f)) != string(was[i]) {
			t.Errorf("%s was rewritten by the queued dispatch", f)
		}
	}
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil || len(evs) != 6 || evs[5].Content != "queued" {
		t.Fatalf("events after the dispatch: %d, %v; want the first turn and the queued request", len(evs), err)
	}
	if _, err := os.Stat(filepath.Join(conv, "events.log")); err != nil {
		t.Fatalf("the log after the dispatch: %v", err)
	}

	sc.append(t, sc.loc, id, second[2:]...)
	if _, err := os.Stat(filepath.Join(conv, "events.log")); !os.IsNotExist(err) {
		t.Fatalf("the log after the queued turn's end: %v, want it folded", err)
	}
	for _, f := range []string{filepath.Join(conv, "events.json"), filepath.Join(proj, "events.json")} {
		got, err := eventcodec.DecodeEvents(readFile(t, f))
		if err != nil || len(got) != 8 {
			t.Fatalf("%s after the queued turn's end: %d events, %v; want both turns", f, len(got), err)
		}
	}
	m, err := sc.s.Get(t.Context(), sc.loc, id)
	if err != nil || m.Metadata.EventsCount != 8 {
		t.Fatalf("metadata after the queued turn: %+v, %v; want events_count 8", m.Metadata, err)
	}
}

// planTurnWrites: what an append owes besides its log lines.
func TestPlanTurnWrites(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	start, req, msg, end := sc.ev.TurnStart(sc.root), sc.ev.ChatRequest("q"), sc.ev.Message("a"), sc.ev.TurnEnd(conversation.OutcomeCompleted)
	for _, c := range []struct {
		name string
		evs  []conversation.Event
		want turnWrites
	}{
		{"a turn's start", []conversation.Event{start, req}, turnWrites{metadata: true}},
		{"an event mid-turn", []conversation.Event{msg}, turnWrites{}},
		{"a turn's end", []conversation.Event{msg, end}, turnWrites{endsTurn: true, metadata: true}},
		{"an end carried to the next start", []conversation.Event{msg, end, start, req}, turnWrites{}},
		{"whole turns", []conversation.Event{start, req, msg, end}, turnWrites{endsTurn: true, metadata: true}},
	} {
		if got := planTurnWrites(c.evs); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
