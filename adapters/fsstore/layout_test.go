package fsstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

func TestNewValidates(t *testing.T) {
	clock := storetest.NewClock(storetest.Start)
	if _, err := New("", clock); err == nil {
		t.Error("New with an empty data dir succeeded")
	}
	if _, err := New(t.TempDir(), nil); err == nil {
		t.Error("New with a nil clock succeeded")
	}
	if _, err := New(t.TempDir(), clock, WithFoldThreshold(0)); err == nil {
		t.Error("New with a zero fold threshold succeeded")
	}
	s, err := New(t.TempDir(), clock)
	if err != nil || !filepath.IsAbs(s.DataDir()) {
		t.Fatalf("New = %v, %v", s, err)
	}
}

func TestLayout(t *testing.T) {
	sc := newScene(t)
	ctx := t.Context()
	silo := sc.silo(t)
	if want := filepath.Join(sc.s.DataDir(), "workspace", "project-one-"+string(sc.ws.ID)); silo != want {
		t.Fatalf("silo = %s, want %s", silo, want)
	}
	checkWorkspaceFiles(t, sc, silo)

	id := sc.create(t, ports.NewConversation{Title: "layout"})
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "hi", 1)...)
	if _, err := sc.s.WriteDraft(ctx, sc.loc, id, "queued\n", ""); err != nil {
		t.Fatal(err)
	}
	if err := sc.s.UpdateLocalMetadata(ctx, sc.loc, id, func(m *conversation.LocalMetadata) error {
		m.LastRoot = &conversation.LastRoot{Path: sc.root, LastUsed: storetest.Start}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	conv := sc.siloConv(t, id)
	if got, want := dirNames(t, conv), []string{"QUERY_MESSAGE.md", "events.json", "metadata.json", "metadata.local.json"}; !sameSet(got, want) {
		t.Errorf("silo conversation files = %v, want %v", got, want)
	}
	if p := sc.s.DraftPath(sc.loc, id); p != filepath.Join(conv, "QUERY_MESSAGE.md") {
		t.Errorf("DraftPath = %s", p)
	}
	proj := filepath.Join(sc.root, ".jp", "conversations", string(id))
	if got := dirNames(t, proj); !sameSet(got, []string{"events.json", "metadata.json"}) {
		t.Errorf("projection files = %v, want only the managed ones", got)
	}
	for _, f := range []string{"events.json", "metadata.json"} {
		if string(readFile(t, filepath.Join(proj, f))) != string(readFile(t, filepath.Join(conv, f))) {
			t.Errorf("projected %s differs from the silo's", f)
		}
	}
	var meta map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(conv, "metadata.json")), &meta); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"title", "created_at", "last_activated_at", "pinned_at", "archived_at", "events_count"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("metadata.json lacks %s: %v", k, meta)
		}
	}

	local := sc.create(t, ports.NewConversation{Local: true})
	if got := string(readFile(t, filepath.Join(sc.siloConv(t, local), "metadata.local.json"))); !strings.Contains(got, `"local": true`) {
		t.Errorf("metadata.local.json of a local conversation = %s", got)
	}
	if ok, _ := exists(filepath.Join(sc.root, ".jp", "conversations", string(local))); ok {
		t.Errorf("a local conversation was projected")
	}

	release, err := sc.s.Lock(ctx, sc.loc, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(silo, "locks", string(id)+".lock")
	if got := strings.TrimSpace(string(readFile(t, lockPath))); got != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want our pid", got)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if n, err := sc.s.CountConversations(ctx, sc.ws.ID); err != nil || n != 2 {
		t.Errorf("CountConversations = %d, %v; want 2", n, err)
	}
}

// checkWorkspaceFiles checks a new workspace's files: .jp/.id,
// .jp/config.toml's template and the checkout's roots record.
func checkWorkspaceFiles(t *testing.T, sc *scene, silo string) {
	t.Helper()
	if got := string(readFile(t, filepath.Join(sc.root, ".jp", ".id"))); got != string(sc.ws.ID)+"\n" {
		t.Errorf(".jp/.id = %q", got)
	}
	if cfg := string(readFile(t, filepath.Join(sc.root, ".jp", "config.toml"))); !strings.HasPrefix(cfg, "#") {
		t.Errorf(".jp/config.toml = %q, want a commented template", cfg)
	}
	var rec map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(silo, "roots", workspace.RootKey(sc.root)+".json")), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec) != 2 || rec["path"] != sc.root || rec["last_used"] != storetest.Start.Format(time.RFC3339) {
		t.Errorf("roots record = %v, want path and last_used", rec)
	}
}

func TestSiloIsNeverRenamed(t *testing.T) {
	sc := newScene(t)
	before := sc.silo(t)
	other := filepath.Join(storetest.TempDir(t), "Renamed Clone")
	writeFile(t, filepath.Join(other, ".jp", ".id"), []byte(sc.ws.ID+"\n"))
	f, err := sc.s.Find(t.Context(), other)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := New(sc.s.DataDir(), sc.clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.Register(t.Context(), f); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, filepath.Join(sc.s.DataDir(), "workspace")); !slices.Contains(got, filepath.Base(before)) || len(silos(got)) != 1 {
		t.Fatalf("silos after registering a differently named checkout = %v, want only %s", got, filepath.Base(before))
	}
}

func silos(names []string) []string {
	var out []string
	for _, n := range names {
		if _, _, ok := workspace.SiloID(n); ok {
			out = append(out, n)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestTwoCheckoutsShareOneWorkspace(t *testing.T) {
	sc := newScene(t)
	ctx := t.Context()
	b := filepath.Join(storetest.TempDir(t), "worktree")
	writeFile(t, filepath.Join(b, ".jp", ".id"), readFile(t, filepath.Join(sc.root, ".jp", ".id")))
	fb, err := sc.s.Find(ctx, filepath.Join(b, ".jp"))
	if err != nil || fb.ID != sc.ws.ID || fb.Root != b {
		t.Fatalf("Find in the second checkout = %+v, %v", fb, err)
	}
	sc.clock.Advance(time.Minute)
	if err := sc.s.Register(ctx, fb); err != nil {
		t.Fatal(err)
	}
	known := mustKnown(t, sc.s)
	if len(known) != 1 || len(known[0].Checkouts) != 2 || !known[0].Checkouts[0].Live || !known[0].Checkouts[1].Live {
		t.Fatalf("Known = %+v, want one workspace with two live checkouts", known)
	}

	// Reading the registry writes nothing.
	snap := snapshot(t, sc.s.DataDir())
	mustKnown(t, sc.s)
	if _, err := sc.s.Lookup(ctx, sc.ws.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.s.CountConversations(ctx, sc.ws.ID); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, sc.s.DataDir()); !slices.Equal(snap, after) {
		t.Fatalf("reading the registry changed the data dir:\n%v\n%v", snap, after)
	}

	if err := os.RemoveAll(b); err != nil {
		t.Fatal(err)
	}
	known = mustKnown(t, sc.s)
	if len(known) != 1 || len(known[0].Checkouts) != 2 {
		t.Fatalf("Known after deleting a checkout = %+v, want its record kept", known)
	}
	for _, c := range known[0].Checkouts {
		if want := c.Path == sc.root; c.Live != want {
			t.Errorf("checkout %s live = %v, want %v", c.Path, c.Live, want)
		}
	}
	if _, err := os.Stat(filepath.Join(sc.silo(t), "roots", workspace.RootKey(b)+".json")); err != nil {
		t.Errorf("the dead checkout's record was removed: %v", err)
	}
	// A checkout whose .id now names another workspace is not live either.
	writeFile(t, filepath.Join(sc.root, ".jp", ".id"), []byte("zzzzzzz\n"))
	for _, c := range mustKnown(t, sc.s)[0].Checkouts {
		if c.Live {
			t.Errorf("checkout %s still live after its .id changed", c.Path)
		}
	}
}

func mustKnown(t *testing.T, s *Store) []workspace.Known {
	t.Helper()
	k, err := s.Known(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// snapshot lists every path under dir with its size and modification time.
func snapshot(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, p+" "+strconv.FormatInt(fi.Size(), 10)+" "+fi.ModTime().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestProjectionPerCheckout(t *testing.T) {
	sc := newScene(t)
	b := filepath.Join(storetest.TempDir(t), "b")
	writeFile(t, filepath.Join(b, ".jp", ".id"), []byte(sc.ws.ID+"\n"))
	id := sc.create(t, ports.NewConversation{Title: "from A"})
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 1)...)
	for _, p := range []string{
		filepath.Join(sc.root, ".jp", "conversations", string(id), "events.json"),
		filepath.Join(sc.siloConv(t, id), "events.json"),
	} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if ok, _ := exists(filepath.Join(b, ".jp", "conversations", string(id))); ok {
		t.Errorf("conversation written via A appeared in B's projection")
	}
	locB := workspace.Location{ID: sc.ws.ID, Root: b}
	s, err := sc.s.Get(t.Context(), locB, id)
	if err != nil || s.Storage != conversation.StorageUserLocal {
		t.Fatalf("Get from B = %+v, %v; want user-local", s, err)
	}
}

func TestHandCopiedConversationIsListed(t *testing.T) {
	sc := newScene(t)
	ctx := t.Context()
	// Another machine: its own data dir, its own checkout of the workspace.
	elsewhere, theirClock := newTestStore(t)
	theirClock.Advance(-time.Hour)
	a2 := filepath.Join(storetest.TempDir(t), "a2")
	writeFile(t, filepath.Join(a2, ".jp", ".id"), []byte(sc.ws.ID+"\n"))
	loc2 := workspace.Location{ID: sc.ws.ID, Root: a2}
	theirs, err := elsewhere.Create(ctx, loc2, ports.NewConversation{Title: "theirs"})
	if err != nil {
		t.Fatal(err)
	}
	evs := storetest.NewEventMaker("t", storetest.Start).Turn(a2, "their q", 2)
	if err := elsewhere.Append(ctx, loc2, theirs, evs...); err != nil {
		t.Fatal(err)
	}
	// Ours, copied by hand from A's projection into B.
	mine := sc.create(t, ports.NewConversation{Title: "mine"})
	sc.append(t, sc.loc, mine, sc.ev.Turn(sc.root, "my q", 0)...)

	b := filepath.Join(storetest.TempDir(t), "b")
	writeFile(t, filepath.Join(b, ".jp", ".id"), []byte(sc.ws.ID+"\n"))
	copyDir(t, filepath.Join(a2, ".jp", "conversations", string(theirs)), filepath.Join(b, ".jp", "conversations", string(theirs)))
	copyDir(t, filepath.Join(sc.root, ".jp", "conversations", string(mine)), filepath.Join(b, ".jp", "conversations", string(mine)))
	locB := workspace.Location{ID: sc.ws.ID, Root: b}
	l, err := sc.s.List(ctx, locB)
	if err != nil {
		t.Fatal(err)
	}
	got := map[conversation.ID]conversation.Storage{}
	for _, s := range l {
		got[s.ID] = s.Storage
	}
	if len(got) != 2 || got[theirs] != conversation.StorageWorkspaceOnly || got[mine] != conversation.StorageBoth {
		t.Fatalf("List from B = %v, want theirs workspace-only and mine both", got)
	}
	read, err := sc.s.Events(ctx, locB, theirs)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, read, evs)
	more := sc.ev.Turn(b, "continue here", 0)
	sc.append(t, locB, theirs, more...)
	if s, err := sc.s.Get(ctx, sc.loc, theirs); err != nil || s.Storage != conversation.StorageUserLocal || s.Metadata.EventsCount != len(evs)+len(more) {
		t.Fatalf("after importing, Get from A = %+v, %v", s, err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	for _, n := range dirNames(t, from) {
		writeFile(t, filepath.Join(to, n), readFile(t, filepath.Join(from, n)))
	}
}
