package pluginhost_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
)

// TestReadEventsPaged: over the protocol, read_events with offset and
// limit answers that page of the stored events with next_offset and more;
// one without them answers every event as before (no next_offset); a
// negative offset or limit is refused in one line.
func TestReadEventsPaged(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	id := h.conv("long")
	ev := storetest.NewEventMaker("p", storetest.Start)
	evs := append(ev.Turn(h.loc.Root, "one", 1), ev.Turn(h.loc.Root, "two", 0)...) // 6 + 4 events
	if err := h.store.Append(t.Context(), h.loc, id, evs...); err != nil {
		t.Fatal(err)
	}
	reqs := []string{
		`{"type":"read_events","id":"all","conversation":"%s"}`,
		`{"type":"read_events","id":"p1","conversation":"%s","limit":4}`,
		`{"type":"read_events","id":"p2","conversation":"%s","offset":4,"limit":4}`,
		`{"type":"read_events","id":"p3","conversation":"%s","offset":8,"limit":4}`,
		`{"type":"read_events","id":"new","conversation":"%s","offset":10}`,
		`{"type":"read_events","id":"past","conversation":"%s","offset":12}`,
		`{"type":"read_events","id":"neg","conversation":"%s","offset":-1}`,
		`{"type":"read_events","id":"lim","conversation":"%s","limit":-3}`,
	}
	steps := []step{ready}
	for _, r := range reqs {
		steps = append(steps, send(fmt.Sprintf(r, id)), read(1))
	}
	if err := h.run(append(steps, exit0)...); err != nil {
		t.Fatal(err)
	}
	lines := h.transcript()[1:]
	want := []string{
		"events all: p1..p10 next=<nil> more=false",
		"events p1: p1..p4 next=4 more=true",
		"events p2: p5..p8 next=8 more=true",
		"events p3: p9..p10 next=10 more=false",
		"events new:  next=10 more=false",
		"events past:  next=10 more=false",
		"error neg: bad field: offset must be 0 or more (the index of the first event wanted), not -1",
		"error lim: bad field: limit must be 0 (no bound) or more, not -3",
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d answers, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, l := range lines {
		if got := describePage(t, l); got != want[i] {
			t.Errorf("answer %d = %q, want %q\n%s", i, got, want[i], l)
		}
	}
}

// describePage sums an events or error answer up in one line.
func describePage(t *testing.T, line string) string {
	t.Helper()
	var m struct {
		Type, ID, Message string
		Data              []struct{ ID string }
		NextOffset        *int `json:"next_offset"`
		More              bool
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	if m.Type == plugin.TypeError {
		return fmt.Sprintf("error %s: %s", m.ID, m.Message)
	}
	span := ""
	if n := len(m.Data); n > 0 {
		span = m.Data[0].ID + ".." + m.Data[n-1].ID
	}
	next := "<nil>"
	if m.NextOffset != nil {
		next = fmt.Sprint(*m.NextOffset)
	}
	return fmt.Sprintf("%s %s: %s next=%s more=%v", m.Type, m.ID, span, next, m.More)
}

// TestReadEventsPageBoundsTheLine: over the protocol, a page of events
// of code (jp stores < as \u003c) stops before the event that would take
// its line past plugin.PageBytes.
func TestReadEventsPageBoundsTheLine(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	id := h.conv("code")
	ev := storetest.NewEventMaker("c", storetest.Start)
	var evs []conversation.Event
	for range 3 {
		evs = append(evs, ev.Turn(h.loc.Root, strings.Repeat("<a>&", 50_000), 0)...) // 950 KB stored
	}
	if err := h.store.Append(t.Context(), h.loc, id, evs...); err != nil {
		t.Fatal(err)
	}
	steps := []step{ready, send(fmt.Sprintf(`{"type":"read_events","id":"p","conversation":"%s","offset":0}`, id)), read(1), exit0}
	if err := h.run(steps...); err != nil {
		t.Fatal(err)
	}
	line := h.transcript()[1]
	if got := describePage(t, line); got != "events p: c1..c2 next=2 more=true" || len(line) > plugin.PageBytes+64<<10 {
		t.Fatalf("page = %s, a line of %d bytes; want c1..c2 (with the answer it would pass the bound), under %d", got, len(line), plugin.PageBytes)
	}
}
