package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// childEnv makes the test binary act as a child process (see crash_test.go).
const childEnv = "JP_FSSTORE_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "append":
		os.Exit(appendChild())
	case "lock":
		os.Exit(lockChild())
	}
	goleak.VerifyTestMain(m)
}

func TestContract(t *testing.T) {
	storetest.RunConversationStoreSuite(t, func(t *testing.T) storetest.Stores {
		s, clock := newTestStore(t)
		return storetest.Stores{
			Conversations:  s,
			Drafts:         s,
			Registry:       s,
			Locker:         s,
			Clock:          clock,
			NewCheckout:    newCheckout,
			SeedProjection: seedProjection,
			LockPID:        os.Getpid(),
		}
	})
}

// newTestStore returns a store in a fresh temp data directory.
func newTestStore(t testing.TB, opts ...Option) (*Store, *storetest.Clock) {
	t.Helper()
	clock := storetest.NewClock(storetest.Start)
	s, err := New(filepath.Join(storetest.TempDir(t), "data"), clock, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s, clock
}

// newCheckout makes a directory, holding .jp/.id with id when id is set.
func newCheckout(t *testing.T, id workspace.ID) string {
	t.Helper()
	d := storetest.TempDir(t)
	if id != "" {
		writeFile(t, filepath.Join(d, ".jp", ".id"), []byte(string(id)+"\n"))
	}
	return d
}

// seedProjection writes a conversation into a checkout's projection by
// hand, as a git checkout of someone else's commit would.
func seedProjection(t *testing.T, root string, id conversation.ID, meta conversation.Metadata, evs []conversation.Event) {
	t.Helper()
	dir := filepath.Join(root, ".jp", "conversations", string(id))
	b, err := eventcodec.EncodeEvents(evs)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "events.json"), b)
	m, err := json.MarshalIndent(storedForm(meta), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "metadata.json"), m)
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scene is a store with one initialised, registered checkout.
type scene struct {
	s     *Store
	clock *storetest.Clock
	root  string
	ws    ports.Found
	loc   workspace.Location
	ev    *storetest.EventMaker
}

func newScene(t *testing.T, opts ...Option) *scene {
	t.Helper()
	s, clock := newTestStore(t, opts...)
	root := filepath.Join(storetest.TempDir(t), "Project One")
	f, err := s.Init(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Register(t.Context(), f); err != nil {
		t.Fatal(err)
	}
	return &scene{
		s: s, clock: clock, root: f.Root, ws: f,
		loc: workspace.Location{ID: f.ID, Root: f.Root},
		ev:  storetest.NewEventMaker("e", storetest.Start),
	}
}

// silo is the scene's silo directory.
func (sc *scene) silo(t *testing.T) string {
	t.Helper()
	d, err := sc.s.siloDir(sc.ws.ID)
	if err != nil || d == "" {
		t.Fatalf("silo of %s: %q, %v", sc.ws.ID, d, err)
	}
	return d
}

func (sc *scene) siloConv(t *testing.T, id conversation.ID) string {
	return filepath.Join(sc.silo(t), "conversations", string(id))
}

func (sc *scene) create(t *testing.T, nc ports.NewConversation) conversation.ID {
	t.Helper()
	id, err := sc.s.Create(t.Context(), sc.loc, nc)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (sc *scene) append(t testing.TB, loc workspace.Location, id conversation.ID, evs ...conversation.Event) {
	t.Helper()
	if err := sc.s.Append(t.Context(), loc, id, evs...); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

// dirNames lists a directory's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	names, err := readDirNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	return names
}
