package app_test

import (
	"context"
	"testing"

	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// TestShowTurnKeepsOnlyThatTurn: ShowTurn gives turn n (or the last) and
// the number of turns, from the events as they stream.
func TestShowTurnKeepsOnlyThatTurn(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock(storetest.Start)
	store := memstore.New(clock)
	f, err := store.Init(ctx, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	loc := workspace.Location{ID: f.ID, Root: f.Root}
	id, err := store.Create(ctx, loc, ports.NewConversation{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ev := storetest.NewEventMaker("e", storetest.Start)
	for _, p := range []string{"one", "two", "three"} {
		if err := store.Append(ctx, loc, id, ev.Turn("/proj", p, 0)...); err != nil {
			t.Fatal(err)
		}
	}
	c := app.NewConversations(store, store, clock)
	prompt := func(evs []conversation.Event) string {
		for _, e := range evs {
			if e.Type == conversation.EventTypeChatRequest {
				return e.Content
			}
		}
		return ""
	}
	for _, tc := range []struct {
		n    int
		last bool
		want string
	}{{1, false, "one"}, {2, false, "two"}, {0, true, "three"}, {9, false, ""}} {
		s, evs, turns, err := c.ShowTurn(ctx, loc, id, tc.n, tc.last)
		if err != nil || s.ID != id || turns != 3 || prompt(evs) != tc.want {
			t.Errorf("ShowTurn(%d, %v) = %s, %q, %d turns, %v; want %q of 3", tc.n, tc.last, s.ID, prompt(evs), turns, err, tc.want)
		}
		if tc.want != "" && (evs[0].Type != conversation.EventTypeTurnStart || evs[len(evs)-1].Type != conversation.EventTypeTurnEnd) {
			t.Errorf("ShowTurn(%d, %v) = %d events, not one whole turn", tc.n, tc.last, len(evs))
		}
	}
}
