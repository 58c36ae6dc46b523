package pluginhost_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/ports"
)

// setLastRoot records the checkout a conversation last ran in, as a turn
// does.
func (h *host) setLastRoot(id conversation.ID, path string, at time.Time) {
	h.t.Helper()
	err := h.store.UpdateLocalMetadata(h.t.Context(), h.loc, id, func(m *conversation.LocalMetadata) error {
		m.LastRoot = &conversation.LastRoot{Path: path, LastUsed: at}
		return nil
	})
	if err != nil {
		h.t.Fatal(err)
	}
}

// TestPluginReportsLastRoot: list_conversations entries and read_events
// carry last_root with its derived liveness, and leave it out when no
// turn recorded one.
func TestPluginReportsLastRoot(t *testing.T) {
	h := newHost(t)
	here, gone, none := h.conv("here"), h.conv("gone"), h.conv("none")
	worktree := filepath.Join(t.TempDir(), "worktree")
	h.store.SetWorkspaceDir(worktree, h.loc.ID)
	at := time.Date(2026, 2, 1, 9, 14, 0, 0, time.UTC)
	h.setLastRoot(here, h.loc.Root, at)
	h.setLastRoot(gone, worktree, at.Add(time.Hour))
	h.store.RemoveWorkspaceDir(worktree) // the worktree was deleted

	steps := []step{ready, send(`{"type":"list_conversations","id":"l"}`), read(1)}
	for _, id := range []conversation.ID{here, gone, none} {
		steps = append(steps, send(fmt.Sprintf(`{"type":"read_events","id":"%s","conversation":"%s"}`, id, id)), read(1))
	}
	if err := h.run(append(steps, exit0)...); err != nil {
		t.Fatal(err)
	}
	lines := h.transcript()[1:]
	if len(lines) != 4 {
		t.Fatalf("answers = %q", lines)
	}
	var list plugin.Conversations
	if err := json.Unmarshal([]byte(lines[0]), &list); err != nil || len(list.Data) != 3 {
		t.Fatalf("conversations = %s (%v)", lines[0], err)
	}
	want := map[string]string{
		string(here): fmt.Sprintf(`{"path":%q,"last_used":"2026-02-01T09:14:00Z","live":true}`, h.loc.Root),
		string(gone): fmt.Sprintf(`{"path":%q,"last_used":"2026-02-01T10:14:00Z","live":false}`, worktree),
		string(none): "",
	}
	for _, c := range list.Data {
		if got := lastRootJSON(t, c.LastRoot); got != want[c.ID] {
			t.Errorf("list_conversations %s last_root = %s, want %s", c.Title, got, want[c.ID])
		}
	}
	if strings.Count(lines[0], `"last_root"`) != 2 {
		t.Errorf("last_root not left out for a conversation without a record: %s", lines[0])
	}
	for i, id := range []conversation.ID{here, gone, none} {
		var ev plugin.Events
		if err := json.Unmarshal([]byte(lines[i+1]), &ev); err != nil || ev.ID != string(id) {
			t.Fatalf("events = %s (%v)", lines[i+1], err)
		}
		if got := lastRootJSON(t, ev.LastRoot); got != want[string(id)] {
			t.Errorf("read_events %s last_root = %s, want %s", id, got, want[string(id)])
		}
		if (want[string(id)] == "") == strings.Contains(lines[i+1], `"last_root"`) {
			t.Errorf("read_events %s: last_root present = %v: %s", id, !(want[string(id)] == ""), lines[i+1])
		}
	}
}

func lastRootJSON(t *testing.T, lr *conversation.LastRoot) string {
	t.Helper()
	if lr == nil {
		return ""
	}
	b, err := json.Marshal(lr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPluginListWorkspaces: every known workspace, its live checkouts
// most recently used first with their storage, launch on the one jp runs
// in, and an empty roots array for a workspace whose checkouts are gone.
func TestPluginListWorkspaces(t *testing.T) {
	h := newHost(t)
	ctx := t.Context()
	worktree := filepath.Join(t.TempDir(), "worktree")
	deleted := filepath.Join(t.TempDir(), "deleted")
	other, err := h.store.Init(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.store.SetWorkspaceDir(worktree, h.loc.ID)
	h.store.SetWorkspaceDir(deleted, h.loc.ID)
	for _, f := range []ports.Found{
		{ID: h.loc.ID, Root: deleted}, {ID: h.loc.ID, Root: worktree}, other,
	} {
		if err := h.store.Register(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	h.store.RemoveWorkspaceDir(deleted)
	h.store.RemoveWorkspaceDir(other.Root)

	// The run registers the launch checkout: it is the most recent.
	if err := h.run(ready, send(`{"type":"list_workspaces","id":"w"}`), read(1), exit0); err != nil {
		t.Fatal(err)
	}
	line := h.transcript()[1]
	var got plugin.Workspaces
	if err := json.Unmarshal([]byte(line), &got); err != nil || got.ID != "w" || len(got.Data) != 2 {
		t.Fatalf("workspaces = %s (%v)", line, err)
	}
	by := map[string]plugin.WorkspaceEntry{}
	for _, w := range got.Data {
		by[w.ID] = w
	}
	launch, gone := by[string(h.loc.ID)], by[string(other.ID)]
	if !launch.Launch || launch.Slug == "" || len(launch.Roots) != 2 ||
		launch.Roots[0].Path != h.loc.Root || launch.Roots[1].Path != worktree {
		t.Fatalf("launch workspace = %+v", launch)
	}
	for _, r := range launch.Roots {
		if r.Storage != filepath.Join(r.Path, ".jp") || r.LastUsed.IsZero() || r.LastUsed.Location() != time.UTC {
			t.Errorf("root = %+v", r)
		}
	}
	if gone.Launch || gone.Roots == nil || len(gone.Roots) != 0 {
		t.Errorf("workspace with no live checkout = %+v", gone)
	}
	wantRaw := fmt.Sprintf(`{"id":%q,"slug":%q,"launch":false,"roots":[]}`, other.ID, gone.Slug)
	if !strings.Contains(line, wantRaw) {
		t.Errorf("workspaces = %s, want an entry %s", line, wantRaw)
	}
}
