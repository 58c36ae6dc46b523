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
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// recordingStore is a memstore with an expiry record (the port's mock)
// that says what the test sets.
type recordingStore struct {
	*memstore.Store
	*mocks.ExpiryRecordMock
}

// newRecordingStore returns a recordingStore over st whose SweepNeeded
// answers needed and state.
func newRecordingStore(st *memstore.Store, needed bool, state string) *recordingStore {
	return &recordingStore{Store: st, ExpiryRecordMock: &mocks.ExpiryRecordMock{
		SweepNeededFunc: func(context.Context, workspace.Location, time.Time, conversation.ID) (bool, string) {
			return needed, state
		},
		RecordNextExpiryFunc: func(context.Context, workspace.Location, string, time.Time) error { return nil },
	}}
}

// A store's expiry record decides whether the end of a run lists the
// conversations: not needed, an expired conversation stays (nothing is
// listed); needed, it goes, and the earliest expiry left (one not yet
// due) is recorded with the state the store gave.
func TestSweepFollowsTheExpiryRecord(t *testing.T) {
	for _, needed := range []bool{false, true} {
		var rs *recordingStore
		f := newFixtureWith(t, func(d *app.QueryDeps) {
			rs = newRecordingStore(d.Store.(*memstore.Store), needed, "s1")
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
		calls := rs.RecordNextExpiryCalls()
		switch {
		case !needed && err != nil:
			t.Fatalf("record says no sweep: the expired conversation was removed (%v)", err)
		case !needed && len(calls) != 0:
			t.Fatalf("record says no sweep: recorded %v", calls)
		case needed && err == nil:
			t.Fatal("sweep needed: the expired conversation is still there")
		case needed && (len(calls) != 1 || !calls[0].Next.Equal(later) || calls[0].State != "s1"):
			t.Fatalf("sweep needed: recorded %v, want [%v] [s1]", calls, later)
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
