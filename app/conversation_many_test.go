package app

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// manyStore is a store mock holding the conversations known, by ID and
// title, in the order given; Trash records what it removed and fails for
// failTrash.
func manyStore(known [][2]string, failTrash conversation.ID) (*mocks.ConversationStoreMock, *[]conversation.ID) {
	var trashed []conversation.ID
	var list []conversation.Summary
	for _, k := range known {
		list = append(list, conversation.Summary{ID: conversation.ID(k[0]), Metadata: conversation.Metadata{Title: k[1]}})
	}
	get := func(_ context.Context, _ workspace.Location, id conversation.ID) (conversation.Summary, error) {
		for _, s := range list {
			if s.ID == id && !slices.Contains(trashed, id) {
				return s, nil
			}
		}
		return conversation.Summary{}, ports.ConversationNotFound(id)
	}
	store := &mocks.ConversationStoreMock{
		GetFunc:  get,
		ListFunc: func(context.Context, workspace.Location) ([]conversation.Summary, error) { return list, nil },
		TrashFunc: func(_ context.Context, _ workspace.Location, id conversation.ID) error {
			if id == failTrash {
				return errors.New("disk full")
			}
			trashed = append(trashed, id)
			return nil
		},
	}
	return store, &trashed
}

// countingLocker grants every lock and counts the locks taken and
// released.
func countingLocker() (*mocks.LockerMock, *int, *int) {
	var taken, released int
	return &mocks.LockerMock{LockFunc: func(context.Context, workspace.Location, conversation.ID, time.Duration) (func() error, error) {
		taken++
		return func() error { released++; return nil }, nil
	}}, &taken, &released
}

var manyLoc = workspace.Location{ID: "abc1234", Root: "/p"}

// TrashAll trashes each conversation once, in order, under its lock, and
// stops at the first failure with the ones moved before it.
func TestTrashAllInOrderStopsAtFirstFailure(t *testing.T) {
	t.Parallel()
	known := [][2]string{{"17960000001", "one"}, {"17960000002", "two"}, {"17960000003", "three"}, {"17960000004", "four"}}
	store, trashed := manyStore(known, "17960000003")
	locker, taken, released := countingLocker()
	c := NewConversations(store, locker, nil)

	done, err := c.TrashAll(t.Context(), manyLoc, []conversation.ID{"17960000002", "17960000001", "17960000002"})
	if err != nil || !slices.Equal(done, []conversation.ID{"17960000002", "17960000001"}) {
		t.Fatalf("TrashAll = %v, %v; want [17960000002 17960000001] (each once, in order)", done, err)
	}
	if !slices.Equal(*trashed, done) || *taken != 2 || *released != 2 {
		t.Fatalf("store trashed %v with %d locks taken, %d released; want each once under its lock", *trashed, *taken, *released)
	}

	done, err = c.TrashAll(t.Context(), manyLoc, []conversation.ID{"17960000004", "17960000003", "17960000009"})
	if err == nil || !strings.Contains(err.Error(), "disk full") || !slices.Equal(done, []conversation.ID{"17960000004"}) {
		t.Fatalf("TrashAll with a failing second = %v, %v; want [17960000004] and the store's error", done, err)
	}
	if *taken != *released {
		t.Errorf("%d locks taken, %d released: a failed trash keeps its lock", *taken, *released)
	}
	// An unknown ID is a user error naming it, and nothing after it runs.
	done, err = c.TrashAll(t.Context(), manyLoc, []conversation.ID{"17960000009", "17960000003"})
	var ue *UserError
	if len(done) != 0 || !errors.As(err, &ue) || !strings.Contains(err.Error(), "conversation 17960000009 not found") {
		t.Fatalf("TrashAll of an unknown ID = %v, %v; want nothing done and a user error naming it", done, err)
	}
}

// ResolveEach resolves IDs, prefixes and set targets to summaries, each
// conversation once in the order named; the first that does not resolve
// is the error.
func TestResolveEachOnceInOrder(t *testing.T) {
	t.Parallel()
	known := [][2]string{{"17960000001", "one"}, {"17960000002", "two"}, {"18000000000", "other"}}
	store, _ := manyStore(known, "")
	locker, _, _ := countingLocker()
	c := NewConversations(store, locker, nil)

	got, err := c.ResolveEach(t.Context(), manyLoc, []string{"18", "17960000002", "1800000", "17960000001"})
	if err != nil {
		t.Fatal(err)
	}
	var ids, titles []string
	for _, s := range got {
		ids, titles = append(ids, string(s.ID)), append(titles, s.Metadata.Title)
	}
	if want := []string{"18000000000", "17960000002", "17960000001"}; !slices.Equal(ids, want) || !slices.Equal(titles, []string{"other", "two", "one"}) {
		t.Fatalf("ResolveEach = %v %v; want %v with their titles", ids, titles, want)
	}
	for _, tc := range []struct {
		raws []string
		err  string
	}{
		{[]string{"17960000001", "1796"}, "1796 matches 2 conversations"},
		{[]string{"17960000001", "19"}, "conversation 19 not found"},
	} {
		if got, err := c.ResolveEach(t.Context(), manyLoc, tc.raws); err == nil || !strings.Contains(err.Error(), tc.err) || got != nil {
			t.Errorf("ResolveEach(%q) = %v, %v; want no summaries and an error containing %q", tc.raws, got, err, tc.err)
		}
	}
}

// dirStore is a store keeping each conversation in a directory of its own.
type dirStore struct {
	*mocks.ConversationStoreMock
	root string
}

func (d dirStore) ConversationDir(ctx context.Context, loc workspace.Location, id conversation.ID) (string, error) {
	if _, err := d.Get(ctx, loc, id); err != nil {
		return "", err
	}
	return filepath.Join(d.root, string(id)), nil
}

// PathsOf gives each named conversation's paths in order, and on the
// first that fails, the paths before it with the error.
func TestPathsOfInOrderStopsAtFirstFailure(t *testing.T) {
	t.Parallel()
	known := [][2]string{{"17960000001", "one"}, {"18000000000", "other"}}
	mock, _ := manyStore(known, "")
	locker, _, _ := countingLocker()
	c := NewConversations(dirStore{mock, "/data"}, locker, nil)

	got, err := c.PathsOf(t.Context(), manyLoc, []string{"18", "17960000001"}, "events.json", "metadata.json")
	want := []string{"/data/18000000000/events.json", "/data/18000000000/metadata.json", "/data/17960000001/events.json", "/data/17960000001/metadata.json"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("PathsOf = %v, %v; want %v", got, err, want)
	}
	got, err = c.PathsOf(t.Context(), manyLoc, []string{"17960000001", "19", "18"})
	if err == nil || !strings.Contains(err.Error(), "conversation 19 not found") || !slices.Equal(got, []string{"/data/17960000001"}) {
		t.Fatalf("PathsOf with an unknown second = %v, %v; want the first's directory and the error", got, err)
	}
	// A store without directories: a user error, no paths.
	got, err = NewConversations(mock, locker, nil).PathsOf(t.Context(), manyLoc, []string{"18"})
	var ue *UserError
	if len(got) != 0 || !errors.As(err, &ue) {
		t.Fatalf("PathsOf on a store without directories = %v, %v; want a user error", got, err)
	}
}

// SetPinned and SetArchived stamp their own field with the clock's time,
// keep a stamp already there, and clear it; the other field is untouched.
func TestSetPinnedAndArchivedStampTheirField(t *testing.T) {
	t.Parallel()
	store, _ := manyStore([][2]string{{"17960000001", "one"}}, "")
	var m conversation.Metadata
	store.UpdateMetadataFunc = func(_ context.Context, _ workspace.Location, _ conversation.ID, fn func(*conversation.Metadata) error) error {
		return fn(&m)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := &mocks.ClockMock{NowFunc: func() time.Time { return now }}
	locker, _, _ := countingLocker()
	c := NewConversations(store, locker, clock)
	ctx, id := t.Context(), conversation.ID("17960000001")
	at := func(p *time.Time) string {
		if p == nil {
			return "unset"
		}
		return p.Format(time.TimeOnly)
	}
	step := func(what string, err error, pinned, archived string) {
		t.Helper()
		if err != nil || at(m.PinnedAt) != pinned || at(m.ArchivedAt) != archived {
			t.Fatalf("%s: %v; pinned %s, archived %s; want %s, %s", what, err, at(m.PinnedAt), at(m.ArchivedAt), pinned, archived)
		}
	}
	step("pin", c.SetPinned(ctx, manyLoc, id, true), "03:04:05", "unset")
	now = now.Add(time.Hour)
	step("pin again", c.SetPinned(ctx, manyLoc, id, true), "03:04:05", "unset")
	step("archive", c.SetArchived(ctx, manyLoc, id, true), "03:04:05", "04:04:05")
	step("unpin", c.SetPinned(ctx, manyLoc, id, false), "unset", "04:04:05")
	step("unarchive", c.SetArchived(ctx, manyLoc, id, false), "unset", "unset")
}

// Within lists the unarchived conversations the time flags select, oldest
// first; a flag it cannot read is the error and nothing is listed.
func TestWithinSelectsByTheTimeFlags(t *testing.T) {
	t.Parallel()
	store, _ := manyStore(nil, "")
	day := func(d int) time.Time { return time.Date(2026, 11, d, 12, 0, 0, 0, time.UTC) }
	list := []conversation.Summary{
		{ID: "c3", Metadata: conversation.Metadata{CreatedAt: day(20)}},
		{ID: "c1", Metadata: conversation.Metadata{CreatedAt: day(2)}},
		{ID: "c2", Metadata: conversation.Metadata{CreatedAt: day(10)}},
		{ID: "archived", Metadata: conversation.Metadata{CreatedAt: day(11), ArchivedAt: new(time.Time)}},
	}
	store.ListFunc = func(context.Context, workspace.Location) ([]conversation.Summary, error) { return list, nil }
	clock := &mocks.ClockMock{NowFunc: func() time.Time { return day(29) }}
	c := NewConversations(store, nil, clock)

	got, err := c.Within(t.Context(), manyLoc, "2026-11-05", "", "")
	var ids []conversation.ID
	for _, s := range got {
		ids = append(ids, s.ID)
	}
	if err != nil || !slices.Equal(ids, []conversation.ID{"c2", "c3"}) {
		t.Fatalf("Within(from 2026-11-05) = %v, %v; want [c2 c3]", ids, err)
	}
	calls := len(store.ListCalls())
	if got, err := c.Within(t.Context(), manyLoc, "", "soon", ""); err == nil || !strings.HasPrefix(err.Error(), "--until: ") || got != nil {
		t.Fatalf("Within(until soon) = %v, %v; want the --until error", got, err)
	}
	if len(store.ListCalls()) != calls {
		t.Errorf("a bad flag listed the conversations")
	}
}
