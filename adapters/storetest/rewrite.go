package storetest

import (
	"errors"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// testRewriteEvents checks ports.EventRewriter (jp q --replay's trim):
// the last turn goes, a config_delta recorded after it stays, the count
// follows, and an error from fn or events that break the stream's rules
// change nothing.
func testRewriteEvents(t *testing.T, e *env) {
	rw, ok := e.Conversations.(ports.EventRewriter)
	if !ok {
		t.Fatalf("%T does not implement ports.EventRewriter", e.Conversations)
	}
	id := e.create(t, e.loc, ports.NewConversation{Title: "t"})
	first := e.ev.Turn(e.root, "first", 1)
	second := e.ev.Turn(e.root, "second", 2)
	e.appendEvents(t, e.loc, id, first...)
	e.appendEvents(t, e.loc, id, second[:3]...)
	delta, err := conversation.NewConfigDelta("e-delta", Start, []byte(`{"assistant":{"model":{"id":"demo/echo"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	e.appendEvents(t, e.loc, id, delta)
	e.appendEvents(t, e.loc, id, second[3:]...)
	before := e.events(t, e.loc, id)

	boom := errors.New("boom")
	if err := rw.RewriteEvents(e.ctx, e.loc, id, func([]conversation.Event) ([]conversation.Event, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("RewriteEvents with a failing fn = %v, want boom", err)
	}
	broken := e.ev.Message("no id")
	broken.ID = ""
	if err := rw.RewriteEvents(e.ctx, e.loc, id, func(evs []conversation.Event) ([]conversation.Event, error) {
		return append(evs, broken), nil
	}); err == nil {
		t.Fatal("RewriteEvents accepted an event without an ID")
	}
	SameEvents(t, e.events(t, e.loc, id), before)

	var removed conversation.Event
	if err := rw.RewriteEvents(e.ctx, e.loc, id, func(evs []conversation.Event) ([]conversation.Event, error) {
		kept, req, _ := conversation.TrimLastRequest(evs)
		removed = req
		return kept, nil
	}); err != nil {
		t.Fatalf("RewriteEvents: %v", err)
	}
	if removed.Content != "second" {
		t.Fatalf("removed request %q, want second", removed.Content)
	}
	got := e.events(t, e.loc, id)
	if len(got) != len(first)+1 || got[len(got)-1].Kind != conversation.KindConfigDelta {
		t.Fatalf("after the trim: %d events, last %v; want the first turn and the config_delta", len(got), got[len(got)-1].Kind)
	}
	SameEvents(t, got[:len(first)], first)
	if n := e.get(t, e.loc, id).Metadata.EventsCount; n != len(got) {
		t.Fatalf("events_count %d, want %d", n, len(got))
	}
	// The conversation takes a new turn after it.
	again := e.ev.Turn(e.root, "second, again", 0)
	e.appendEvents(t, e.loc, id, again...)
	if got := e.events(t, e.loc, id); len(got) != len(first)+1+len(again) {
		t.Fatalf("after a new turn: %d events", len(got))
	}
}
