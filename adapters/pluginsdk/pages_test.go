package pluginsdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// fillConversation appends about n events to conversation id: turns of
// six events (two tool calls), each request padded to pad bytes.
func fillConversation(tb testing.TB, store ports.ConversationStore, loc workspace.Location, id conversation.ID, n, pad int) {
	tb.Helper()
	ev := storetest.NewEventMaker("e", storetest.Start)
	var evs []conversation.Event
	for len(evs) < n {
		prompt := fmt.Sprintf("question %d ", len(evs))
		evs = append(evs, ev.Turn(loc.Root, prompt+strings.Repeat("x", max(0, pad-len(prompt))), 2)...)
	}
	if err := store.Append(tb.Context(), loc, id, evs...); err != nil {
		tb.Fatal(err)
	}
}

// eventIDs returns the IDs of the events of pages, in order.
func eventIDs(t *testing.T, data []json.RawMessage) []string {
	t.Helper()
	ids := make([]string, len(data))
	for i, b := range data {
		var e struct{ ID string }
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		ids[i] = e.ID
	}
	return ids
}

// TestEventPagesReadEveryEvent: against the real host, EventPages reads
// the events ReadEvents reads, in pages no bigger than plugin.PageBytes
// (a 3 MB conversation takes several) or limit; leaving the loop stops
// reading.
func TestEventPagesReadEveryEvent(t *testing.T) {
	t.Parallel()
	c, _, stop := startHostWith(t, hostSetup{conversations: 1, events: 900, pad: 6000})
	defer stop()
	ctx := t.Context()
	convs, err := c.ListConversations(ctx)
	if err != nil || len(convs) != 1 {
		t.Fatalf("list = %v, %v", convs, err)
	}
	conv := convs[0].ID
	whole, err := c.ReadEvents(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(eventIDs(t, whole.Data), " ")
	for _, limit := range []int{0, 250} {
		var got []string
		pages := 0
		for page, err := range c.EventPages(ctx, conv, limit) {
			if err != nil {
				t.Fatal(err)
			}
			pages++
			size := 0
			for _, b := range page.Data {
				size += len(b)
			}
			if size > plugin.PageBytes || (limit > 0 && len(page.Data) > limit) {
				t.Errorf("limit %d: page %d holds %d events, %d bytes", limit, pages, len(page.Data), size)
			}
			if fmt.Sprint(page.LastRoot) != fmt.Sprint(whole.LastRoot) {
				t.Errorf("limit %d: page %d last_root = %+v, want %+v", limit, pages, page.LastRoot, whole.LastRoot)
			}
			got = append(got, eventIDs(t, page.Data)...)
		}
		if strings.Join(got, " ") != want || pages < 3 {
			t.Errorf("limit %d: %d pages of %d events, want the %d of ReadEvents in 3 or more", limit, pages, len(got), len(whole.Data))
		}
	}
	pages := 0
	for range c.EventPages(ctx, conv, 100) {
		pages++
		break
	}
	if pages != 1 {
		t.Fatalf("a loop left after one page read %d", pages)
	}
}

// TestReadEventsPageOfAnOlderJP: a jp that does not page answers every
// event and no next_offset; ReadEventsPage cuts the page asked for out of
// it, the answer in flight counted as no stored event.
func TestReadEventsPageOfAnOlderJP(t *testing.T) {
	t.Parallel()
	type pageWant struct {
		offset, limit int
		want          string
		next          int
		more          bool
	}
	cases := []pageWant{
		{0, 2, "a b", 2, true},
		{2, 0, "c partial-1", 3, false},
		{2, 1, "c", 3, true},
		{3, 5, "partial-1", 3, false},
		{7, 0, "", 3, false},
	}
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		for _, tc := range cases {
			p, err := c.ReadEventsPage(ctx, "17127583920", tc.offset, tc.limit)
			if err != nil {
				return err
			}
			if got := strings.Join(eventIDs(t, p.Data), " "); got != tc.want || *p.NextOffset != tc.next || p.More != tc.more {
				t.Errorf("page %d/%d = %q next %d more %v, want %+v", tc.offset, tc.limit, got, *p.NextOffset, p.More, tc)
			}
		}
		return nil
	})
	f.Recv() // ready
	for range cases {
		r := f.Recv()
		f.Send(fmt.Sprintf(`{"type":"events","id":%q,"conversation":"17127583920","data":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"partial-1"}]}`, r["id"]))
	}
	f.Recv() // exit
	f.End()
}

// TestEventPagesOfARewoundConversation: a conversation that holds fewer
// events than were read (rewound between two pages) ends the pages with
// an error naming it.
func TestEventPagesOfARewoundConversation(t *testing.T) {
	t.Parallel()
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		n := 0
		var last error
		for _, err := range c.EventPages(ctx, "17127583920", 2) {
			n++
			last = err
		}
		want := "conversation 17127583920 changed while it was read: it holds 1 events now, fewer than the 2 read; read it again"
		if n != 2 || last == nil || last.Error() != want {
			t.Errorf("pages = %d, last error %v, want 2 and %q", n, last, want)
		}
		return nil
	})
	f.Recv() // ready
	r := f.Recv()
	if r["offset"] != float64(0) || r["limit"] != float64(2) {
		t.Errorf("first request = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"events","id":%q,"conversation":"17127583920","data":[{"id":"a"},{"id":"b"}],"next_offset":2,"more":true}`, r["id"]))
	r = f.Recv()
	if r["offset"] != float64(2) {
		t.Errorf("second request = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"events","id":%q,"conversation":"17127583920","data":[],"next_offset":1}`, r["id"]))
	f.Recv() // exit
	f.End()
}

// TestReadEventsTooLongForOneAnswer: when jp answers that a conversation
// is too long for one answer, ReadEvents reads it a page at a time and
// returns every event, with the last page's record.
func TestReadEventsTooLongForOneAnswer(t *testing.T) {
	t.Parallel()
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		evs, err := c.ReadEvents(ctx, "17127583920")
		if err != nil {
			return err
		}
		if got := strings.Join(eventIDs(t, evs.Data), " "); got != "a b c" || evs.LastRoot == nil || evs.LastRoot.Path != "/p" || evs.NextOffset != nil || evs.More {
			t.Errorf("events = %q %+v", got, evs)
		}
		return nil
	})
	f.Recv() // ready
	r := f.Recv()
	if _, paged := r["offset"]; paged {
		t.Fatalf("first request = %v, want one for every event", r)
	}
	f.Send(fmt.Sprintf(`{"type":"error","id":%q,"request":"read_events","message":"conversation 17127583920: its events are more than 16 MiB, more than one message carries: %s"}`, r["id"], plugin.AskForPages))
	r = f.Recv()
	f.Send(fmt.Sprintf(`{"type":"events","id":%q,"conversation":"17127583920","data":[{"id":"a"},{"id":"b"}],"next_offset":2,"more":true}`, r["id"]))
	r = f.Recv()
	if r["offset"] != float64(2) {
		t.Fatalf("second page request = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"events","id":%q,"conversation":"17127583920","data":[{"id":"c"}],"last_root":{"path":"/p","last_used":"2025-07-20T10:29:58Z","live":true},"next_offset":3}`, r["id"]))
	f.Recv() // exit
	f.End()
}
