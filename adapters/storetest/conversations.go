package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

func testCreateListGet(t *testing.T, e *env) {
	t0 := e.Clock.Now()
	id1 := e.create(t, e.loc, ports.NewConversation{Title: "first"})
	t1 := e.Clock.Advance(time.Second)
	id2 := e.create(t, e.loc, ports.NewConversation{Title: "second"})
	if id1 != conversation.NewID(t0) {
		t.Errorf("first ID = %s, want %s (from the clock)", id1, conversation.NewID(t0))
	}
	l := e.list(t, e.loc)
	if len(l) != 2 || l[0].ID != id1 || l[1].ID != id2 {
		t.Fatalf("List = %+v, want %s then %s", l, id1, id2)
	}
	for i, want := range []struct {
		title string
		at    time.Time
	}{{"first", t0}, {"second", t1}} {
		s := l[i]
		m := s.Metadata
		if m.Title != want.title || !m.CreatedAt.Equal(want.at) || !m.LastActivatedAt.Equal(want.at) || m.EventsCount != 0 {
			t.Errorf("metadata of %s = %+v, want title %q, created and activated at %v, no events", s.ID, m, want.title, want.at)
		}
		if m.Pinned() || m.Archived() || s.Local || s.LastRoot != nil {
			t.Errorf("summary of %s = %+v, want unpinned, unarchived, not local, no last root", s.ID, s)
		}
		if s.Storage != conversation.StorageBoth {
			t.Errorf("storage of %s = %v, want both (silo and checkout projection)", s.ID, s.Storage)
		}
		got := e.get(t, e.loc, s.ID)
		if got.ID != s.ID || got.Storage != s.Storage || got.Metadata.Title != m.Title || !got.Metadata.CreatedAt.Equal(m.CreatedAt) {
			t.Errorf("Get(%s) = %+v, want %+v", s.ID, got, s)
		}
		if evs := e.events(t, e.loc, s.ID); len(evs) != 0 {
			t.Errorf("Events(%s) = %v, want none", s.ID, evs)
		}
	}
}

func testCreateBumpsCollidingIDs(t *testing.T, e *env) {
	a := e.create(t, e.loc, ports.NewConversation{})
	b := e.create(t, e.loc, ports.NewConversation{})
	c := e.create(t, e.loc, ports.NewConversation{Local: true})
	if b != a.Next() || c != b.Next() {
		t.Fatalf("IDs created within one decisecond = %s, %s, %s; want consecutive", a, b, c)
	}
	// An ID taken only in the checkout's projection is skipped too.
	now := e.Clock.Advance(time.Minute)
	taken := conversation.NewID(now)
	e.SeedProjection(t, e.root, taken, conversation.Metadata{Title: "theirs", CreatedAt: now, LastActivatedAt: now}, nil)
	if d := e.create(t, e.loc, ports.NewConversation{}); d != taken.Next() {
		t.Fatalf("Create with %s taken in the projection = %s, want %s", taken, d, taken.Next())
	}
}

func testAppendEvents(t *testing.T, e *env) {
	id := e.create(t, e.loc, ports.NewConversation{Title: "t"})
	turn := e.ev.Turn(e.root, "read the readme", 2)
	// One event at a time, as a turn persists, then a batch.
	for _, ev := range turn[:3] {
		e.appendEvents(t, e.loc, id, ev)
	}
	e.appendEvents(t, e.loc, id, turn[3:]...)
	second := e.ev.Turn(e.root, "again", 1)
	last := e.Clock.Advance(time.Hour)
	e.appendEvents(t, e.loc, id, second...)
	want := append(append([]conversation.Event{}, turn...), second...)
	SameEvents(t, e.events(t, e.loc, id), want)
	s := e.get(t, e.loc, id)
	if s.Metadata.EventsCount != len(want) || !s.Metadata.LastActivatedAt.Equal(last) {
		t.Fatalf("metadata after appends = %+v, want events_count %d and last_activated_at %v", s.Metadata, len(want), last)
	}
	if err := e.Conversations.Append(e.ctx, e.loc, id); err != nil {
		t.Fatalf("Append of nothing: %v", err)
	}
	if err := conversation.Validate(e.events(t, e.loc, id)); err != nil {
		t.Fatalf("stored stream is invalid: %v", err)
	}
}

func testAppendRejects(t *testing.T, e *env) {
	id := e.create(t, e.loc, ports.NewConversation{})
	first := e.ev.Turn(e.root, "hello", 1)
	e.appendEvents(t, e.loc, id, first...)
	// An open turn with an unanswered call, for the cases that need one.
	open := []conversation.Event{e.ev.TurnStart(e.root), e.ev.ChatRequest("more")}
	call := e.ev.ToolCall("grep")
	e.appendEvents(t, e.loc, id, append(open, call)...)
	before := e.events(t, e.loc, id)
	count := e.get(t, e.loc, id).Metadata.EventsCount

	noID := e.ev.Message("no id")
	noID.ID = ""
	noTime := e.ev.Message("no time")
	noTime.Timestamp = time.Time{}
	stray := e.ev.ToolCall("stray")
	cases := []struct {
		name string
		evs  []conversation.Event
	}{
		{"turn end with a call unanswered", []conversation.Event{e.ev.TurnEnd(conversation.OutcomeCompleted)}},
		{"response to an unknown call", []conversation.Event{e.ev.ToolResult(stray, "x")}},
		{"valid events before an invalid one", []conversation.Event{e.ev.ToolResult(call, "ok"), e.ev.Message("m"), e.ev.ToolResult(call, "twice")}},
		{"duplicate event id", []conversation.Event{first[1]}},
		{"event without id", []conversation.Event{noID}},
		{"event without timestamp", []conversation.Event{noTime}},
		{"turn end with a bad outcome", []conversation.Event{e.ev.ToolResult(call, "ok"), e.ev.TurnEnd("exploded")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := e.Conversations.Append(e.ctx, e.loc, id, tc.evs...)
			if !errors.Is(err, conversation.ErrInvariant) {
				t.Fatalf("Append = %v, want an error wrapping conversation.ErrInvariant", err)
			}
			SameEvents(t, e.events(t, e.loc, id), before)
			if got := e.get(t, e.loc, id).Metadata.EventsCount; got != count {
				t.Fatalf("events_count after a rejected append = %d, want %d", got, count)
			}
		})
	}
	// Chat outside any turn, in a fresh conversation.
	other := e.create(t, e.loc, ports.NewConversation{})
	if err := e.Conversations.Append(e.ctx, e.loc, other, e.ev.ChatRequest("hi")); !errors.Is(err, conversation.ErrInvariant) {
		t.Fatalf("chat_request without turn_start: Append = %v, want ErrInvariant", err)
	}
	// The stream state survived the rejections: finishing the turn works.
	rest := []conversation.Event{e.ev.ToolResult(call, "found"), e.ev.TurnEnd(conversation.OutcomeCompleted)}
	e.appendEvents(t, e.loc, id, rest...)
	SameEvents(t, e.events(t, e.loc, id), append(before, rest...))
}

func testUpdateMetadata(t *testing.T, e *env) {
	id := e.create(t, e.loc, ports.NewConversation{Title: "old"})
	pinned := e.Clock.Advance(time.Minute)
	err := e.Conversations.UpdateMetadata(e.ctx, e.loc, id, func(m *conversation.Metadata) error {
		m.Title = "new"
		m.PinnedAt = &pinned
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateMetadata: %v", err)
	}
	s := e.get(t, e.loc, id)
	if s.Metadata.Title != "new" || !s.Metadata.Pinned() || !s.Metadata.PinnedAt.Equal(pinned) {
		t.Fatalf("metadata = %+v, want title new, pinned at %v", s.Metadata, pinned)
	}
	boom := errors.New("boom")
	err = e.Conversations.UpdateMetadata(e.ctx, e.loc, id, func(m *conversation.Metadata) error {
		m.Title = "half-done"
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("UpdateMetadata with a failing fn = %v, want it wrapped", err)
	}
	if got := e.get(t, e.loc, id).Metadata.Title; got != "new" {
		t.Fatalf("title after a failed update = %q, want new", got)
	}
}

func testRemove(t *testing.T, e *env) {
	keep := e.create(t, e.loc, ports.NewConversation{Title: "keep"})
	gone := e.create(t, e.loc, ports.NewConversation{Title: "gone"})
	e.appendEvents(t, e.loc, gone, e.ev.Turn(e.root, "x", 1)...)
	if _, err := e.Drafts.WriteDraft(e.ctx, e.loc, gone, "draft", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.Conversations.Remove(e.ctx, e.loc, gone); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	var nf *ports.NotFoundError
	if _, err := e.Conversations.Get(e.ctx, e.loc, gone); !errors.As(err, &nf) {
		t.Fatalf("Get after Remove = %v, want *ports.NotFoundError", err)
	}
	if _, err := e.Conversations.Events(e.ctx, e.loc, gone); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("Events after Remove = %v, want ErrNotFound", err)
	}
	if l := e.list(t, e.loc); len(l) != 1 || l[0].ID != keep {
		t.Fatalf("List after Remove = %+v, want only %s", l, keep)
	}
	if err := e.Conversations.Remove(e.ctx, e.loc, gone); !errors.As(err, &nf) {
		t.Fatalf("second Remove = %v, want *ports.NotFoundError", err)
	}
	// A projection-only conversation can be removed from its checkout.
	b := e.NewCheckout(t, e.ws.ID)
	locB := e.loc
	locB.Root = b
	theirs := conversation.ID("17000000000")
	e.SeedProjection(t, b, theirs, conversation.Metadata{Title: "theirs", CreatedAt: Start, LastActivatedAt: Start}, nil)
	if err := e.Conversations.Remove(e.ctx, locB, theirs); err != nil {
		t.Fatalf("Remove of a projection-only conversation: %v", err)
	}
	if _, ok := find(e.list(t, locB), theirs); ok {
		t.Fatalf("projection-only conversation still listed after Remove")
	}
}
