package storetest

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

func testLocalMetadata(t *testing.T, e *env) {
	id := e.create(t, e.loc, ports.NewConversation{})
	m, err := e.Conversations.LocalMetadata(e.ctx, e.loc, id)
	if err != nil {
		t.Fatalf("LocalMetadata: %v", err)
	}
	if m.Local || m.LastRoot != nil || len(m.Extra) != 0 {
		t.Fatalf("LocalMetadata of a new conversation = %+v, want zero", m)
	}
	future := json.RawMessage(`{"nested":[1,2,{"x":"y"}]}`)
	used := e.Clock.Advance(time.Minute)
	err = e.Conversations.UpdateLocalMetadata(e.ctx, e.loc, id, func(m *conversation.LocalMetadata) error {
		m.Extra = map[string]json.RawMessage{"from_a_newer_jp": future, "flag": json.RawMessage(`true`)}
		m.LastRoot = &conversation.LastRoot{Path: e.root, LastUsed: used}
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateLocalMetadata: %v", err)
	}
	// A rewrite by code that knows nothing of the extra keys keeps them.
	later := e.Clock.Advance(time.Minute)
	err = e.Conversations.UpdateLocalMetadata(e.ctx, e.loc, id, func(m *conversation.LocalMetadata) error {
		m.LastRoot = &conversation.LastRoot{Path: e.root, LastUsed: later}
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateLocalMetadata: %v", err)
	}
	m, err = e.Conversations.LocalMetadata(e.ctx, e.loc, id)
	if err != nil {
		t.Fatalf("LocalMetadata: %v", err)
	}
	if len(m.Extra) != 2 || !sameJSON(m.Extra["from_a_newer_jp"], future) || !sameJSON(m.Extra["flag"], []byte("true")) {
		t.Fatalf("unknown keys after rewrite = %s, want from_a_newer_jp and flag kept", m.Extra)
	}
	if m.LastRoot == nil || m.LastRoot.Path != e.root || !m.LastRoot.LastUsed.Equal(later) || m.Local {
		t.Fatalf("LocalMetadata = %+v, want last_root %s at %v", m, e.root, later)
	}
	boom := errors.New("boom")
	err = e.Conversations.UpdateLocalMetadata(e.ctx, e.loc, id, func(m *conversation.LocalMetadata) error {
		m.LastRoot = nil
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("UpdateLocalMetadata with a failing fn = %v, want it wrapped", err)
	}
	if m, _ := e.Conversations.LocalMetadata(e.ctx, e.loc, id); m.LastRoot == nil {
		t.Fatalf("a failed update changed the local metadata")
	}
}

func testLastRootLiveness(t *testing.T, e *env) {
	elsewhere := e.NewCheckout(t, "")
	other := e.NewCheckout(t, "zzzzzzz") // a checkout of another workspace
	cases := []struct {
		name string
		path string
		live bool
	}{
		{"this checkout", e.root, true},
		{"a directory without a workspace", elsewhere, false},
		{"a checkout of another workspace", other, false},
		{"a directory that is gone", e.root + "-deleted", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := e.create(t, e.loc, ports.NewConversation{})
			err := e.Conversations.UpdateLocalMetadata(e.ctx, e.loc, id, func(m *conversation.LocalMetadata) error {
				m.LastRoot = &conversation.LastRoot{Path: tc.path, LastUsed: Start}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			l, _ := find(e.list(t, e.loc), id)
			g := e.get(t, e.loc, id)
			for name, s := range map[string]conversation.Summary{"List": l, "Get": g} {
				lr := s.LastRoot
				if lr == nil || lr.Path != tc.path || lr.Live == nil || *lr.Live != tc.live {
					t.Errorf("%s: last_root = %+v, want path %s with live %v", name, lr, tc.path, tc.live)
				}
			}
		})
	}
}

func testLocalAndProjected(t *testing.T, e *env) {
	local := e.create(t, e.loc, ports.NewConversation{Title: "mine", Local: true})
	shared := e.create(t, e.loc, ports.NewConversation{Title: "ours"})
	e.appendEvents(t, e.loc, local, e.ev.Turn(e.root, "secret", 1)...)
	e.appendEvents(t, e.loc, shared, e.ev.Turn(e.root, "public", 1)...)
	if m, err := e.Conversations.LocalMetadata(e.ctx, e.loc, local); err != nil || !m.Local {
		t.Fatalf("LocalMetadata of a local conversation = %+v, %v; want local", m, err)
	}
	b := e.NewCheckout(t, e.ws.ID)
	views := []struct {
		name   string
		loc    workspace.Location
		local  conversation.Storage
		shared conversation.Storage
	}{
		{"from the writing checkout", e.loc, conversation.StorageUserLocal, conversation.StorageBoth},
		{"from another checkout", workspace.Location{ID: e.ws.ID, Root: b}, conversation.StorageUserLocal, conversation.StorageUserLocal},
		{"without a checkout", workspace.Location{ID: e.ws.ID}, conversation.StorageUserLocal, conversation.StorageUserLocal},
	}
	for _, v := range views {
		t.Run(v.name, func(t *testing.T) {
			l := e.list(t, v.loc)
			ls, ok1 := find(l, local)
			ss, ok2 := find(l, shared)
			if !ok1 || !ok2 || len(l) != 2 {
				t.Fatalf("List = %+v, want both conversations", l)
			}
			if ls.Storage != v.local || !ls.Local {
				t.Errorf("local conversation: storage %v local %v, want %v and local", ls.Storage, ls.Local, v.local)
			}
			if ss.Storage != v.shared || ss.Local {
				t.Errorf("shared conversation: storage %v local %v, want %v and not local", ss.Storage, ss.Local, v.shared)
			}
		})
	}
}

// importers are the writes that import a projection-only conversation.
var importers = []struct {
	name  string
	write func(e *env, loc workspace.Location, id conversation.ID) error
}{
	{"Append", func(e *env, loc workspace.Location, id conversation.ID) error {
		return e.Conversations.Append(e.ctx, loc, id, e.ev.Turn(loc.Root, "continue", 0)...)
	}},
	{"UpdateMetadata", func(e *env, loc workspace.Location, id conversation.ID) error {
		return e.Conversations.UpdateMetadata(e.ctx, loc, id, func(m *conversation.Metadata) error { m.Title += " (mine now)"; return nil })
	}},
	{"UpdateLocalMetadata", func(e *env, loc workspace.Location, id conversation.ID) error {
		return e.Conversations.UpdateLocalMetadata(e.ctx, loc, id, func(m *conversation.LocalMetadata) error {
			m.LastRoot = &conversation.LastRoot{Path: loc.Root, LastUsed: Start}
			return nil
		})
	}},
	{"WriteDraft", func(e *env, loc workspace.Location, id conversation.ID) error {
		_, err := e.Drafts.WriteDraft(e.ctx, loc, id, "a reply", "")
		return err
	}},
}

func testProjectionOnlyImport(t *testing.T, e *env) {
	for i, w := range importers {
		t.Run(w.name, func(t *testing.T) {
			b := e.NewCheckout(t, e.ws.ID)
			locB := workspace.Location{ID: e.ws.ID, Root: b}
			id := conversation.ID("1700000000" + string(rune('0'+i)))
			theirs := NewEventMaker("theirs-", Start).Turn("/elsewhere/checkout", "their question", 1)
			meta := conversation.Metadata{Title: "theirs", CreatedAt: Start, LastActivatedAt: Start, EventsCount: len(theirs)}
			e.SeedProjection(t, b, id, meta, theirs)

			s, ok := find(e.list(t, locB), id)
			if !ok || s.Storage != conversation.StorageWorkspaceOnly || s.Metadata.Title != "theirs" || s.Local {
				t.Fatalf("listed from its checkout: %+v (found %v), want workspace-only titled theirs", s, ok)
			}
			if _, ok := find(e.list(t, e.loc), id); ok {
				t.Fatalf("a conversation only in checkout B's projection is listed from A")
			}
			if g := e.get(t, locB, id); g.Storage != conversation.StorageWorkspaceOnly {
				t.Fatalf("Get from B: storage %v, want workspace-only", g.Storage)
			}
			SameEvents(t, e.events(t, locB, id), theirs)
			if m, err := e.Conversations.LocalMetadata(e.ctx, locB, id); err != nil || m.LastRoot != nil || m.Local {
				t.Fatalf("LocalMetadata of a projection-only conversation = %+v, %v; want zero", m, err)
			}
			if _, err := e.Drafts.ReadDraft(e.ctx, locB, id); !errors.Is(err, ports.ErrNotFound) {
				t.Fatalf("ReadDraft of a projection-only conversation = %v, want ErrNotFound", err)
			}

			if err := w.write(e, locB, id); err != nil {
				t.Fatalf("first write: %v", err)
			}
			if g := e.get(t, locB, id); g.Storage != conversation.StorageBoth {
				t.Fatalf("after the first write, storage from B = %v, want both", g.Storage)
			}
			if g := e.get(t, e.loc, id); g.Storage != conversation.StorageUserLocal {
				t.Fatalf("after the first write, storage from A = %v, want user-local (imported)", g.Storage)
			}
			got := e.events(t, e.loc, id)
			if len(got) < len(theirs) {
				t.Fatalf("imported events = %d, want at least the %d seeded", len(got), len(theirs))
			}
			SameEvents(t, got[:len(theirs)], theirs)
			if err := conversation.Validate(got); err != nil {
				t.Fatalf("imported stream is invalid: %v", err)
			}
		})
	}
}

func testInvalidAppendDoesNotImport(t *testing.T, e *env) {
	b := e.NewCheckout(t, e.ws.ID)
	locB := workspace.Location{ID: e.ws.ID, Root: b}
	id := conversation.ID("17000000000")
	e.SeedProjection(t, b, id, conversation.Metadata{Title: "theirs", CreatedAt: Start, LastActivatedAt: Start}, nil)
	err := e.Conversations.Append(e.ctx, locB, id, e.ev.ChatRequest("no turn"))
	if !errors.Is(err, conversation.ErrInvariant) {
		t.Fatalf("invalid Append = %v, want ErrInvariant", err)
	}
	if g := e.get(t, locB, id); g.Storage != conversation.StorageWorkspaceOnly {
		t.Fatalf("after a rejected append, storage = %v, want still workspace-only", g.Storage)
	}
	if _, err := e.Conversations.Get(e.ctx, e.loc, id); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("after a rejected append, Get from A = %v, want ErrNotFound", err)
	}
}
