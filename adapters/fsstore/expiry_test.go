package fsstore

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// The expiry record spares a sweep only while no metadata.json was
// added, removed or changed in the silo or the checkout since the sweep
// that wrote it, and its expiry has not passed.
func TestExpiryRecord(t *testing.T) {
	sc, needed, record := expiryScene(t)
	ctx := t.Context()
	now := sc.clock.Now()
	if ok, state := needed(); !ok || state == "" {
		t.Fatalf("no record yet: needed %v, state %q; want a sweep and a state", ok, state)
	}
	id, err := sc.s.Create(ctx, sc.loc, ports.NewConversation{Title: "one"})
	if err != nil {
		t.Fatal(err)
	}
	record(time.Time{})
	if ok, _ := needed(); ok {
		t.Fatal("nothing changed and nothing expires: no sweep needed")
	}

	// A new conversation (in the silo, or only in the checkout as a git
	// pull brings it) means a sweep.
	other, err := sc.s.Create(ctx, sc.loc, ports.NewConversation{Title: "two"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := needed(); !ok {
		t.Fatal("a conversation was added: a sweep is needed")
	}
	record(time.Time{})
	seedProjection(t, sc.root, "17000000000", conversation.Metadata{Title: "pulled"}, nil)
	if ok, _ := needed(); !ok {
		t.Fatal("a conversation arrived in the checkout: a sweep is needed")
	}
	record(time.Time{})

	// An expiry given through the store, or by hand (another program
	// rewriting metadata.json), means a sweep.
	at := now.Add(time.Hour)
	if err := sc.s.UpdateMetadata(ctx, sc.loc, id, func(m *conversation.Metadata) error { m.SetExpiresAt(&at); return nil }); err != nil {
		t.Fatal(err)
	}
	if ok, _ := needed(); !ok {
		t.Fatal("a conversation was given an expiry: a sweep is needed")
	}
	record(at)
	if ok, _ := needed(); ok {
		t.Fatal("the earliest expiry is an hour away: no sweep needed")
	}
	meta := filepath.Join(sc.silo(t), "conversations", string(other), "metadata.json")
	b := readFile(t, meta)
	writeFile(t, meta, append(b[:len(b)-2], []byte(",\n  \"expires_at\": \"2001-01-01T00:00:00Z\"\n}")...))
	if ok, _ := needed(); !ok {
		t.Fatal("a metadata.json was edited by hand: a sweep is needed")
	}
	record(at)

	// The recorded expiry passing means a sweep; so does a removal.
	if ok, _ := sc.s.SweepNeeded(ctx, sc.loc, at, ""); !ok {
		t.Fatal("the recorded expiry has come: a sweep is needed")
	}
	if err := sc.s.Remove(ctx, sc.loc, other); err != nil {
		t.Fatal(err)
	}
	if ok, _ := needed(); !ok {
		t.Fatal("a conversation was removed: a sweep is needed")
	}

}

// A record that cannot be read means a sweep, and is rewritten whole.
func TestExpiryRecordUnreadable(t *testing.T) {
	sc, needed, record := expiryScene(t)
	record(time.Time{})
	rec := filepath.Join(sc.silo(t), expiryFile)
	writeFile(t, rec, []byte("{not json"))
	if ok, _ := needed(); !ok {
		t.Fatal("an unreadable record: a sweep is needed")
	}
	record(time.Time{})
	if ok, _ := needed(); ok {
		t.Fatal("the record was rewritten: no sweep needed")
	}
	if _, err := os.Stat(rec); err != nil {
		t.Fatal(err)
	}
}

// expiryScene is a scene with functions that ask whether a sweep is
// needed now and record the next expiry for the current state.
func expiryScene(t *testing.T) (sc *scene, needed func() (bool, string), record func(time.Time)) {
	sc = newScene(t)
	needed = func() (bool, string) {
		t.Helper()
		return sc.s.SweepNeeded(t.Context(), sc.loc, sc.clock.Now(), "")
	}
	record = func(next time.Time) {
		t.Helper()
		_, state := needed()
		if err := sc.s.RecordNextExpiry(t.Context(), sc.loc, state, next); err != nil {
			t.Fatal(err)
		}
	}
	return sc, needed, record
}

// A workspace without a silo (a checkout not registered here) has no
// record: every sweep lists.
func TestExpiryRecordWithoutSilo(t *testing.T) {
	s, clock := newTestStore(t)
	root := newCheckout(t, "nosilo01")
	loc := workspace.Location{ID: "nosilo01", Root: root}
	ok, state := s.SweepNeeded(t.Context(), loc, clock.Now(), "")
	if !ok {
		t.Fatal("no silo: a sweep is needed")
	}
	if err := s.RecordNextExpiry(t.Context(), loc, state, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.SweepNeeded(t.Context(), loc, clock.Now(), ""); !ok {
		t.Fatal("no silo to keep a record in: a sweep is needed")
	}
}

// The run's own conversation (keep) is left out: its turns rewrite its
// metadata without making the next run list everything, and a new one
// (jp q --new) does not either. Its expiry is read when a run with
// another conversation asks.
func TestExpiryRecordKeep(t *testing.T) {
	sc := newScene(t)
	ctx := t.Context()
	now := sc.clock.Now()
	own, err := sc.s.Create(ctx, sc.loc, ports.NewConversation{Title: "own"})
	if err != nil {
		t.Fatal(err)
	}
	_, token := sc.s.SweepNeeded(ctx, sc.loc, now, own)
	if err := sc.s.RecordNextExpiry(ctx, sc.loc, token, time.Time{}); err != nil {
		t.Fatal(err)
	}
	turn := func(id conversation.ID) {
		t.Helper()
		ev := sc.ev
		if err := sc.s.Append(ctx, sc.loc, id, ev.TurnStart(sc.root), ev.ChatRequest("q"), ev.TurnEnd(conversation.OutcomeCompleted)); err != nil {
			t.Fatal(err)
		}
	}
	turn(own)
	if ok, _ := sc.s.SweepNeeded(ctx, sc.loc, now, own); ok {
		t.Fatal("a turn of the run's own conversation: no sweep needed")
	}
	fresh, err := sc.s.Create(ctx, sc.loc, ports.NewConversation{Title: "new"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := sc.s.SweepNeeded(ctx, sc.loc, now, fresh); ok {
		t.Fatal("a run's new conversation: no sweep needed")
	}
	// The recorded run's conversation expires: a run on another one sweeps.
	past := now.Add(-time.Minute)
	if err := sc.s.UpdateMetadata(ctx, sc.loc, own, func(m *conversation.Metadata) error { m.SetExpiresAt(&past); return nil }); err != nil {
		t.Fatal(err)
	}
	if ok, _ := sc.s.SweepNeeded(ctx, sc.loc, now, fresh); !ok {
		t.Fatal("the recorded run's conversation expired: a run on another one sweeps")
	}
}
