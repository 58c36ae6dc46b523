package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// recordingStore is a memstore with an expiry record that says what the
// test sets and keeps what the sweep records.
type recordingStore struct {
	*memstore.Store
	needed   bool
	state    string
	recorded []time.Time
	states   []string
}

func (r *recordingStore) SweepNeeded(context.Context, workspace.Location, time.Time, conversation.ID) (bool, string) {
	return r.needed, r.state
}

func (r *recordingStore) RecordNextExpiry(_ context.Context, _ workspace.Location, state string, next time.Time) error {
	r.recorded, r.states = append(r.recorded, next), append(r.states, state)
	return nil
}

// A store's expiry record decides whether the end of a run lists the
// conversations: not needed, an expired conversation stays (nothing is
// listed); needed, it goes, and the earliest expiry left (one not yet
// due) is recorded with the state the store gave.
func TestSweepFollowsTheExpiryRecord(t *testing.T) {
	for _, needed := range []bool{false, true} {
		var rs *recordingStore
		f := newFixtureWith(t, func(d *app.QueryDeps) {
			rs = &recordingStore{Store: d.Store.(*memstore.Store), needed: needed, state: "s1"}
			d.Store = rs
		}, resp{events: []llm.Event{text("hi")}})
		ctx := context.Background()
		found, err := f.store.Find(ctx, "/proj")
		if err != nil {
			t.Fatal(err)
		}
		loc := workspace.Location{ID: found.ID, Root: found.Root}
		past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		later := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
		expired := expiring(t, f.store, loc, "expired", past)
		expiring(t, f.store, loc, "later", later)
		if _, _, err := f.run(t, app.QueryInput{Message: "q", HasMessage: true, New: true}); err != nil {
			t.Fatal(err)
		}
		_, err = f.store.Get(ctx, loc, expired)
		switch {
		case !needed && err != nil:
			t.Fatalf("record says no sweep: the expired conversation was removed (%v)", err)
		case !needed && len(rs.recorded) != 0:
			t.Fatalf("record says no sweep: recorded %v", rs.recorded)
		case needed && err == nil:
			t.Fatal("sweep needed: the expired conversation is still there")
		case needed && (len(rs.recorded) != 1 || !rs.recorded[0].Equal(later) || rs.states[0] != "s1"):
			t.Fatalf("sweep needed: recorded %v %v, want [%v] [s1]", rs.recorded, rs.states, later)
		}
	}
}

// expiring makes a conversation that expires at.
func expiring(t *testing.T, s *memstore.Store, loc workspace.Location, title string, at time.Time) conversation.ID {
	t.Helper()
	ctx := context.Background()
	id, err := s.Create(ctx, loc, ports.NewConversation{Title: title})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateMetadata(ctx, loc, id, func(m *conversation.Metadata) error { m.SetExpiresAt(&at); return nil }); err != nil {
		t.Fatal(err)
	}
	return id
}
