package fsstore

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// The whole contract holds for a store that treats every conversation
// as long (a turn's end stays in the log).
func TestContractDeferredFold(t *testing.T) {
	storetest.RunConversationStoreSuite(t, func(t *testing.T) storetest.Stores {
		s, clock := newTestStore(t, WithLongConversation(1))
		return storetest.Stores{
			Conversations: s, Drafts: s, Registry: s, Locker: s, Clock: clock,
			NewCheckout: newCheckout, SeedProjection: seedProjection, LockPID: os.Getpid(),
		}
	})
}

// On a long conversation a turn's end leaves its events in the synced
// log and does not rewrite the user-local events.json; the checkout copy
// is written whole (events.json and the log), is recognised as this
// store's by a fresh process without parsing it, and a copy someone
// changed is parsed (and refused when it does not parse). The log is
// folded when it passes the threshold.
func TestLongConversationTurnEndLeavesTheLog(t *testing.T) {
	t.Parallel()
	sc := newScene(t, WithLongConversation(1), WithFoldThreshold(4<<10))
	id := sc.create(t, ports.NewConversation{})
	conv := sc.siloConv(t, id)
	first := sc.ev.Turn(sc.root, "q", 1)
	sc.append(t, sc.loc, id, first...) // a new conversation's first turn folds
	jsonPath, logPath := filepath.Join(conv, eventsFile), filepath.Join(conv, logFile)
	before, err := os.Stat(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	second := sc.ev.Turn(sc.root, "again", 1)
	syncs := sc.s.Syncs()
	sc.append(t, sc.loc, id, second...)
	t.Logf("a deferred turn of %d events: %d fsyncs", len(second), sc.s.Syncs()-syncs)
	after, err := os.Stat(jsonPath)
	if err != nil || !os.SameFile(before, after) || after.Size() != before.Size() {
		t.Fatalf("the user-local events.json was rewritten at a long conversation's turn end")
	}
	if fi, err := os.Stat(logPath); err != nil || fi.Size() == 0 {
		t.Fatalf("the turn's events are not in the log: %v", err)
	}
	all := append(append([]conversation.Event{}, first...), second...)
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, evs, all)
	proj := filepath.Join(sc.root, ".jp", "conversations", string(id), eventsFile)
	var raw []json.RawMessage
	if b := readFile(t, proj); json.Unmarshal(b, &raw) != nil || len(raw) != len(all) {
		t.Fatalf("the checkout copy holds %d events, want the %d of both turns:\n%s", len(raw), len(all), b)
	}
	if !sameAsProjection(proj, conv) {
		t.Fatalf("the checkout copy this store wrote is not recognised as its")
	}
	writeFile(t, proj, append(readFile(t, proj), ' '))
	if sameAsProjection(proj, conv) {
		t.Fatalf("a changed checkout copy is taken for the store's")
	}
	// A fresh process reads the same events, and checks the changed copy
	// (valid JSON: accepted and replaced at the next turn's end).
	fresh, err := New(sc.s.DataDir(), sc.clock, WithLongConversation(1), WithFoldThreshold(4<<10))
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, appendUntilFolded(t, sc, fresh, id, logPath)...)
	evs, err = fresh.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, evs, all)
	if b := readFile(t, jsonPath); !json.Valid(b) {
		t.Fatal("events.json after the fold does not parse")
	}
	// A checkout copy left with conflict markers stops the next write.
	last := sc.ev.Turn(sc.root, "last", 0)
	sc.append(t, sc.loc, id, last...)
	writeFile(t, proj, []byte("<<<<<<< HEAD\n[]\n=======\n[]\n>>>>>>> theirs\n"))
	again, err := New(sc.s.DataDir(), sc.clock, WithLongConversation(1))
	if err != nil {
		t.Fatal(err)
	}
	var ce *ports.CorruptError
	if err := again.Append(t.Context(), sc.loc, id, sc.ev.TurnStart(sc.root)); !errors.As(err, &ce) || ce.Path != proj {
		t.Fatalf("append with a broken checkout copy = %v, want a *ports.CorruptError naming %s", err, proj)
	}
}

// appendUntilFolded appends turns through store until the log at logPath
// is folded away, and returns their events.
func appendUntilFolded(t *testing.T, sc *scene, store *Store, id conversation.ID, logPath string) []conversation.Event {
	t.Helper()
	var all []conversation.Event
	for i := 0; ; i++ {
		next := sc.ev.Turn(sc.root, "more", 1)
		if err := store.Append(t.Context(), sc.loc, id, next...); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		all = append(all, next...)
		if _, err := os.Stat(logPath); os.IsNotExist(err) {
			return all // folded past the threshold
		}
		if i > 100 {
			t.Fatal("the log was never folded")
		}
	}
}
