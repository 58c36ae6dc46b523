package app_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// forkScene is a checkout on the real file store holding one
// conversation of turns complete turns, active.
type forkScene struct {
	store *fsstore.Store
	loc   workspace.Location
	id    conversation.ID
	clock *storetest.Clock
}

func newForkScene(tb testing.TB, turns int, text string) *forkScene {
	tb.Helper()
	ctx := context.Background()
	dir := storetest.TempDir(tb)
	clock := storetest.NewClock(storetest.Start)
	store, err := fsstore.New(filepath.Join(dir, "data"), clock)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := store.Init(ctx, filepath.Join(dir, "repo"))
	if err != nil {
		tb.Fatal(err)
	}
	loc := workspace.Location{ID: f.ID, Root: f.Root}
	id, err := store.Create(ctx, loc, ports.NewConversation{Title: "original"})
	if err != nil {
		tb.Fatal(err)
	}
	ev := storetest.NewEventMaker("e-", storetest.Start)
	var evs []conversation.Event
	for i := range turns {
		evs = append(evs, ev.Turn(f.Root, fmt.Sprintf("question %d %s", i, text), 1)...)
	}
	if err := store.Append(ctx, loc, id, evs...); err != nil {
		tb.Fatal(err)
	}
	if err := store.SetActive(ctx, loc, id); err != nil {
		tb.Fatal(err)
	}
	clock.Advance(1e9)
	return &forkScene{store: store, loc: loc, id: id, clock: clock}
}

// failingScan is the store with ScanEvents failing after some events
// were read, and every Append failing: a fork cut while it copies.
type failingScan struct {
	ports.ConversationStore
	after int
}

var errDisk = errors.New("injected read error")

func (f *failingScan) ScanEvents(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error) error {
	n := 0
	return f.ConversationStore.ScanEvents(ctx, loc, id, func(e conversation.Event) error {
		if n++; n > f.after {
			return errDisk
		}
		return fn(e)
	})
}

// Append fails too: a fork made of appends is cut at its first.
func (f *failingScan) Append(context.Context, workspace.Location, conversation.ID, ...conversation.Event) error {
	return errDisk
}

// A fork cut in the middle of its copy leaves no conversation listed (and
// no directory behind) and the active conversation as it was.
func TestForkInterruptedLeavesNothing(t *testing.T) {
	ctx := context.Background()
	sc := newForkScene(t, 4, "")
	convs := app.NewConversations(&failingScan{ConversationStore: sc.store, after: 9}, sc.store, sc.clock)
	if _, err := convs.Fork(ctx, sc.loc, sc.id, 0); !errors.Is(err, errDisk) {
		t.Fatalf("Fork = %v, want the injected error", err)
	}
	l, err := sc.store.List(ctx, sc.loc)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 1 || l[0].ID != sc.id {
		t.Fatalf("listed %+v, want only the original", l)
	}
	if a, err := sc.store.Active(ctx, sc.loc); err != nil || a != sc.id {
		t.Fatalf("active = %q, %v; want %s", a, err, sc.id)
	}
	silo, err := filepath.Glob(filepath.Join(sc.store.DataDir(), "workspace", "*", "conversations"))
	if err != nil || len(silo) != 1 {
		t.Fatalf("silo conversations = %v, %v", silo, err)
	}
	for _, dir := range []string{filepath.Join(sc.loc.Root, ".jp", "conversations"), silo[0]} {
		names, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(names) != 1 {
			t.Fatalf("%s holds %d entries, want the original's only", dir, len(names))
		}
	}
}

// Fork copies complete turns (the first N with --turn), title and labels,
// and makes the copy active.
func TestForkCopiesTurns(t *testing.T) {
	ctx := context.Background()
	sc := newForkScene(t, 3, "")
	ev := storetest.NewEventMaker("cut-", storetest.Start)
	// An interrupted last turn: not copied.
	if err := sc.store.Append(ctx, sc.loc, sc.id, ev.TurnStart(sc.loc.Root), ev.ChatRequest("cut")); err != nil {
		t.Fatal(err)
	}
	if err := sc.store.UpdateMetadata(ctx, sc.loc, sc.id, func(m *conversation.Metadata) error {
		m.SetLabels([]string{"keep", "team=core"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	convs := app.NewConversations(sc.store, sc.store, sc.clock)
	all, err := sc.store.Events(ctx, sc.loc, sc.id)
	if err != nil {
		t.Fatal(err)
	}
	turns := app.Turns(all)
	for _, tc := range []struct {
		upTo, turns int
	}{{0, 3}, {2, 2}} {
		nid, err := convs.Fork(ctx, sc.loc, sc.id, tc.upTo)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sc.store.Events(ctx, sc.loc, nid)
		if err != nil {
			t.Fatal(err)
		}
		var want []conversation.Event
		for _, tu := range turns[:tc.turns] {
			want = append(want, tu...)
		}
		storetest.SameEvents(t, got, want)
		s, err := sc.store.Get(ctx, sc.loc, nid)
		if err != nil {
			t.Fatal(err)
		}
		if s.Metadata.Title != "original" || strings.Join(s.Metadata.Labels(), ",") != "keep,team=core" || s.Metadata.EventsCount != len(want) || s.Storage != conversation.StorageBoth {
			t.Fatalf("fork summary %+v", s)
		}
		if a, _ := sc.store.Active(ctx, sc.loc); a != nid {
			t.Fatalf("active = %s, want the fork %s", a, nid)
		}
		sc.clock.Advance(1e9)
	}
	var ue *app.UserError
	if _, err := convs.Fork(ctx, sc.loc, sc.id, 4); !errors.As(err, &ue) || !strings.Contains(err.Error(), "has 3 complete turns") {
		t.Fatalf("Fork --turn 4 = %v", err)
	}
}

// BenchmarkFork forks a conversation of about 40 MB (2,000 turns of a
// 20 KB question each) on the real file store, with fsync.
func BenchmarkFork(b *testing.B) {
	ctx := context.Background()
	sc := newForkScene(b, 2000, strings.Repeat("context of the question ", 850))
	convs := app.NewConversations(sc.store, sc.store, sc.clock)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := convs.Fork(ctx, sc.loc, sc.id, 0); err != nil {
			b.Fatal(err)
		}
		sc.clock.Advance(1e9)
	}
}

// ForkWith selects turns as the Rust jp's fork flags do: --first/--last
// (both: the two ends), more than there are keeps all, --from/--until on
// the turns' start, --no-turns; --title and --label apply to the fork.
func TestForkWithRustSelectors(t *testing.T) {
	ctx := context.Background()
	sc := newForkScene(t, 5, "")
	convs := app.NewConversations(sc.store, sc.store, sc.clock)
	all, err := sc.store.Events(ctx, sc.loc, sc.id)
	if err != nil {
		t.Fatal(err)
	}
	turns := app.Turns(all)
	title := "picked"
	for _, tc := range []struct {
		name string
		o    app.ForkOptions
		want []int
	}{
		{"first 2", app.ForkOptions{First: 2}, []int{0, 1}},
		{"last 2", app.ForkOptions{Last: 2}, []int{3, 4}},
		{"first 1 last 1", app.ForkOptions{First: 1, Last: 1}, []int{0, 4}},
		{"overlapping ends", app.ForkOptions{First: 3, Last: 3}, []int{0, 1, 2, 3, 4}},
		{"last 9", app.ForkOptions{Last: 9}, []int{0, 1, 2, 3, 4}},
		{"from turn 2", app.ForkOptions{From: turns[2][0].Timestamp}, []int{2, 3, 4}},
		{"until turn 2", app.ForkOptions{Until: turns[2][0].Timestamp}, []int{0, 1}},
		{"range then last", app.ForkOptions{Until: turns[3][0].Timestamp, Last: 1}, []int{2}},
		{"no turns", app.ForkOptions{NoTurns: true, Title: &title, Labels: []conversation.LabelDirective{{Op: conversation.LabelSet, Key: "k", Value: "v"}}}, nil},
	} {
		nid, err := convs.ForkWith(ctx, sc.loc, sc.id, tc.o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := sc.store.Events(ctx, sc.loc, nid)
		if err != nil {
			t.Fatal(err)
		}
		var want []conversation.Event
		for _, i := range tc.want {
			want = append(want, turns[i]...)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d events, want %d (turns %v)", tc.name, len(got), len(want), tc.want)
		}
		storetest.SameEvents(t, got, want)
		sc.clock.Advance(1e9)
	}
	nid, _ := sc.store.Active(ctx, sc.loc)
	s, err := sc.store.Get(ctx, sc.loc, nid)
	if err != nil {
		t.Fatal(err)
	}
	if s.Metadata.Title != "picked" || strings.Join(s.Metadata.Labels(), ",") != "k=v" {
		t.Fatalf("no-turns fork metadata %+v", s.Metadata)
	}
	var ue *app.UsageError
	if _, err := convs.ForkWith(ctx, sc.loc, sc.id, app.ForkOptions{NoTurns: true, Last: 1}); !errors.As(err, &ue) {
		t.Fatalf("--no-turns with --last = %v, want a usage error", err)
	}
}
