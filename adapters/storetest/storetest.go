// Package storetest is the contract suite of the storage ports
// (ports.ConversationStore, ports.DraftStore, ports.WorkspaceRegistry and
// ports.Locker). Every adapter runs it from its own tests, so the file
// store and the in-memory store behave alike wherever a caller can tell.
// It also offers a fake clock and an event builder for storage tests.
package storetest

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Stores is one adapter's implementation of the storage ports, with the
// hooks the suite needs to arrange a scene.
type Stores struct {
	Conversations ports.ConversationStore
	Drafts        ports.DraftStore
	Registry      ports.WorkspaceRegistry
	Locker        ports.Locker
	// Clock is the clock the stores were built with.
	Clock *Clock
	// NewCheckout returns a new, canonical directory. With id set it holds
	// .jp/.id with that ID (a clone or worktree of the workspace); with id
	// empty it is a plain directory.
	NewCheckout func(t *testing.T, id workspace.ID) string
	// SeedProjection puts a conversation into root's projection by hand,
	// as if someone else had committed it.
	SeedProjection func(t *testing.T, root string, id conversation.ID, meta conversation.Metadata, evs []conversation.Event)
	// LockPID is the pid a *ports.LockedError must carry; 0 skips the check.
	LockPID int
}

// RunConversationStoreSuite runs the contract suite. newStore must return
// fresh, empty stores for every call.
func RunConversationStoreSuite(t *testing.T, newStore func(t *testing.T) Stores) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"CreateListGet", testCreateListGet},
		{"CreateBumpsCollidingIDs", testCreateBumpsCollidingIDs},
		{"AppendEvents", testAppendEvents},
		{"AppendRejectsInvariantViolations", testAppendRejects},
		{"UpdateMetadata", testUpdateMetadata},
		{"LocalMetadata", testLocalMetadata},
		{"LastRootLiveness", testLastRootLiveness},
		{"LocalAndProjected", testLocalAndProjected},
		{"ProjectionOnlyImportedOnFirstWrite", testProjectionOnlyImport},
		{"InvalidAppendDoesNotImport", testInvalidAppendDoesNotImport},
		{"RewriteEvents", testRewriteEvents},
		{"Remove", testRemove},
		{"Active", testActive},
		{"Trash", testTrash},
		{"UnknownConversation", testUnknownConversation},
		{"InvalidIDs", testInvalidIDs},
		{"Drafts", testDrafts},
		{"Lock", testLock},
		{"LockWaitsForRelease", testLockWaits},
		{"Registry", testRegistry},
		{"RegistryCheckouts", testRegistryCheckouts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, setup(t, newStore))
		})
	}
}

// env is one test's scene: stores and a registered checkout A.
type env struct {
	Stores
	ctx  context.Context
	root string
	ws   ports.Found
	loc  workspace.Location
	ev   *EventMaker
}

// Start is the time the suite's clocks start at.
var Start = time.Date(2026, 9, 8, 10, 12, 0, 0, time.UTC)

func setup(t *testing.T, newStore func(t *testing.T) Stores) *env {
	t.Helper()
	s := newStore(t)
	if s.NewCheckout == nil {
		s.NewCheckout = func(t *testing.T, _ workspace.ID) string { return TempDir(t) }
	}
	ctx := t.Context()
	root := s.NewCheckout(t, "")
	f, err := s.Registry.Init(ctx, root)
	if err != nil {
		t.Fatalf("Init(%s): %v", root, err)
	}
	if err := s.Registry.Register(ctx, f); err != nil {
		t.Fatalf("Register(%v): %v", f, err)
	}
	return &env{
		Stores: s, ctx: ctx, root: f.Root, ws: f,
		loc: workspace.Location{ID: f.ID, Root: f.Root},
		ev:  NewEventMaker("e", Start),
	}
}

// TempDir is t.TempDir with symlinks resolved, so it is canonical.
func TempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// create makes a conversation or fails the test.
func (e *env) create(t *testing.T, loc workspace.Location, nc ports.NewConversation) conversation.ID {
	t.Helper()
	id, err := e.Conversations.Create(e.ctx, loc, nc)
	if err != nil {
		t.Fatalf("Create(%+v): %v", nc, err)
	}
	return id
}

// appendEvents appends or fails the test.
func (e *env) appendEvents(t *testing.T, loc workspace.Location, id conversation.ID, evs ...conversation.Event) {
	t.Helper()
	if err := e.Conversations.Append(e.ctx, loc, id, evs...); err != nil {
		t.Fatalf("Append(%s): %v", id, err)
	}
}

// get reads a summary or fails the test.
func (e *env) get(t *testing.T, loc workspace.Location, id conversation.ID) conversation.Summary {
	t.Helper()
	s, err := e.Conversations.Get(e.ctx, loc, id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return s
}

// events reads events or fails the test.
func (e *env) events(t *testing.T, loc workspace.Location, id conversation.ID) []conversation.Event {
	t.Helper()
	evs, err := e.Conversations.Events(e.ctx, loc, id)
	if err != nil {
		t.Fatalf("Events(%s): %v", id, err)
	}
	return evs
}

// list lists or fails the test.
func (e *env) list(t *testing.T, loc workspace.Location) []conversation.Summary {
	t.Helper()
	l, err := e.Conversations.List(e.ctx, loc)
	if err != nil {
		t.Fatalf("List(%+v): %v", loc, err)
	}
	return l
}

// find returns the listed summary with id.
func find(l []conversation.Summary, id conversation.ID) (conversation.Summary, bool) {
	for _, s := range l {
		if s.ID == id {
			return s, true
		}
	}
	return conversation.Summary{}, false
}

// SameEvents fails the test unless got and want encode alike.
func SameEvents(t testing.TB, got, want []conversation.Event) {
	t.Helper()
	g, err := eventcodec.EncodeEvents(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := eventcodec.EncodeEvents(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Fatalf("events differ\n got: %s\nwant: %s", g, w)
	}
}

// sameJSON reports whether two JSON documents are equal after decoding.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// Clock is a settable ports.Clock, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock reading t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Advance moves the clock forward by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}
