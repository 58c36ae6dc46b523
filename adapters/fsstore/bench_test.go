package fsstore

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

func BenchmarkList1000(b *testing.B)  { benchList(b, 1000) }
func BenchmarkList10000(b *testing.B) { benchList(b, 10000) }

// benchList lists n conversations of one checkout, each in the silo and
// the projection with a last_root record, as after n turns.
func benchList(b *testing.B, n int) {
	ctx := b.Context()
	clock := storetest.NewClock(storetest.Start)
	data := filepath.Join(storetest.TempDir(b), "data")
	setup, err := New(data, clock, withoutFsync())
	if err != nil {
		b.Fatal(err)
	}
	f, err := setup.Init(ctx, filepath.Join(storetest.TempDir(b), "repo"))
	if err != nil {
		b.Fatal(err)
	}
	loc := workspace.Location{ID: f.ID, Root: f.Root}
	for i := range n {
		clock.Advance(1e9)
		id, err := setup.Create(ctx, loc, ports.NewConversation{Title: fmt.Sprintf("conversation %d about something", i)})
		if err != nil {
			b.Fatal(err)
		}
		err = setup.UpdateLocalMetadata(ctx, loc, id, func(m *conversation.LocalMetadata) error {
			m.LastRoot = &conversation.LastRoot{Path: f.Root, LastUsed: clock.Now()}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	flushAll()
	s, err := New(data, clock)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.List(ctx, loc); err != nil { // warm the caches once
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ops := cpuTime(), 0
	for b.Loop() {
		l, err := s.List(ctx, loc)
		if err != nil || len(l) != n {
			b.Fatalf("List = %d, %v", len(l), err)
		}
		ops++
	}
	// CPU time over both cores: wall time on an idle 2-core machine is
	// about half of it.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(ops)/1e6, "cpu-ms/op")
}

// BenchmarkAppend appends one event per op (with fsync) to a conversation
// that already holds 20,000 events (a few MB), in the middle of a turn:
// the cost a streaming turn pays per persisted event, folds included.
func BenchmarkAppend(b *testing.B) {
	sc, id := bigConversation(b, 20000)
	ev := storetest.NewEventMaker("bench-", storetest.Start)
	sc.append(b, sc.loc, id, ev.TurnStart(sc.root), ev.ChatRequest("go"))
	msg := strings.Repeat("a streamed paragraph of the answer ", 10)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := sc.s.Append(b.Context(), sc.loc, id, ev.Message(msg)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendTurn appends a whole small turn per op to the same large
// conversation; each turn_end folds the log and re-projects events.json.
func BenchmarkAppendTurn(b *testing.B) {
	sc, id := bigConversation(b, 20000)
	ev := storetest.NewEventMaker("bench-", storetest.Start)
	sc.append(b, sc.loc, id, ev.Turn(sc.root, "warm up", 0)...)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := sc.s.Append(b.Context(), sc.loc, id, ev.Turn(sc.root, "q", 0)...); err != nil {
			b.Fatal(err)
		}
	}
}

// bigConversation makes a conversation of about n events, written without
// fsync, and returns a fresh store (with fsync) over it.
func bigConversation(b *testing.B, n int) (*scene, conversation.ID) {
	b.Helper()
	ctx := b.Context()
	clock := storetest.NewClock(storetest.Start)
	data := filepath.Join(storetest.TempDir(b), "data")
	setup, err := New(data, clock, withoutFsync())
	if err != nil {
		b.Fatal(err)
	}
	f, err := setup.Init(ctx, filepath.Join(storetest.TempDir(b), "repo"))
	if err != nil {
		b.Fatal(err)
	}
	loc := workspace.Location{ID: f.ID, Root: f.Root}
	id, err := setup.Create(ctx, loc, ports.NewConversation{Title: "long"})
	if err != nil {
		b.Fatal(err)
	}
	ev := storetest.NewEventMaker("old-", storetest.Start)
	var evs []conversation.Event
	for len(evs) < n {
		evs = append(evs, ev.Turn(f.Root, strings.Repeat("a question with some context ", 5), 2)...)
	}
	if err := setup.Append(ctx, loc, id, evs...); err != nil {
		b.Fatal(err)
	}
	flushAll()
	s, err := New(data, clock)
	if err != nil {
		b.Fatal(err)
	}
	return &scene{s: s, clock: clock, root: f.Root, ws: f, loc: loc}, id
}

// BenchmarkEvents100k reads a conversation of about 100,000 events
// (events.json decoded whole) through the store: the cost every command
// that loads a long conversation pays.
func BenchmarkEvents100k(b *testing.B) {
	sc, id := bigConversation(b, 100000)
	if _, err := sc.s.Events(b.Context(), sc.loc, id); err != nil { // warm the caches once
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		evs, err := sc.s.Events(b.Context(), sc.loc, id)
		if err != nil || len(evs) < 100000 {
			b.Fatalf("Events = %d, %v", len(evs), err)
		}
	}
}
