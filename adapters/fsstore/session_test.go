package fsstore

import (
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Two terminal sessions in one checkout keep two active conversations and
// two previous ones; a session with no record of its own falls back to
// the checkout's, and the records live in the data directory.
func TestSessionActiveAndPrevious(t *testing.T) {
	t.Parallel()
	data := filepath.Join(storetest.TempDir(t), "data")
	clock := storetest.NewClock(storetest.Start)
	open := func(session string) *Store {
		s, err := New(data, clock, WithSession(session))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b, plain := open("jp:a"), open("jp:b"), open("")
	ctx := t.Context()
	loc := workspace.Default()
	ids := make([]conversation.ID, 3)
	for i := range ids {
		id, err := plain.Create(ctx, loc, ports.NewConversation{Title: "c"})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
		clock.Advance(2e9)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.SetActive(ctx, loc, ids[0]))
	must(a.SetActive(ctx, loc, ids[1]))
	must(b.SetActive(ctx, loc, ids[2]))
	check := func(s *Store, active, previous conversation.ID) {
		t.Helper()
		got, err := s.Active(ctx, loc)
		must(err)
		prev, err := s.Previous(ctx, loc)
		must(err)
		if got != active || prev != previous {
			t.Fatalf("session %q: active %q previous %q, want %q %q", s.session, got, prev, active, previous)
		}
	}
	check(a, ids[1], ids[0])
	check(b, ids[2], "")
	check(plain, ids[2], ids[1]) // the checkout's record: the last one set anywhere
	check(open("jp:new"), ids[2], "")
}
