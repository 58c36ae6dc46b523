package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// siloEvents is the bytes of the user-local events.json of id.
func siloEvents(t *testing.T, st *fsstore.Store, loc workspace.Location, id conversation.ID) []byte {
	t.Helper()
	dir, err := st.ConversationDir(context.Background(), workspace.Location{ID: loc.ID}, id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "events.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A fork copies each event it keeps as it is stored, byte for byte: a
// field and an event type this jp does not know survive, and the store
// is read without decoding the messages (the header scan).
func TestForkCopiesStoredBytes(t *testing.T) {
	ctx := context.Background()
	sc := newForkScene(t, 3, strings.Repeat("long question ", 100))
	ev := storetest.NewEventMaker("x-", storetest.Start.Add(1e12))
	foreign := conversation.Event{Type: conversation.EventTypeForeign, Kind: "from_the_future", ID: "f1", Timestamp: storetest.Start.Add(2e12),
		Raw: json.RawMessage(`{"type":"from_the_future","id":"f1","timestamp":"2026-09-26T09:14:00Z","payload":{"a":[1,"\u2603"]}}`)}
	if err := sc.store.Append(ctx, sc.loc, sc.id, append(ev.Turn(sc.loc.Root, "last", 1), foreign)...); err != nil {
		t.Fatal(err)
	}
	// A field a later jp added, on a chat_request: in both copies, as a
	// later jp would have written them.
	for _, dir := range conversationDirs(t, sc) {
		p := filepath.Join(dir, "events.json")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.Replace(b, []byte(`"type":"chat_request",`), []byte(`"type":"chat_request","future_field":{"k":[1,2]},`), 1)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	scans := &countingScans{EventHeaderScanner: sc.store}
	convs := app.NewConversations(struct {
		ports.ConversationStore
		ports.EventHeaderScanner
	}{sc.store, scans}, sc.store, sc.clock)
	nid, err := convs.Fork(ctx, sc.loc, sc.id, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The original's events are in its events.json and its log (not
	// folded yet): what a read gives as their stored bytes.
	orig, err := sc.store.Events(ctx, sc.loc, sc.id)
	if err != nil {
		t.Fatal(err)
	}
	got := siloEvents(t, sc.store, sc.loc, nid)
	lines := bytes.Split(bytes.TrimSpace(got), []byte("\n"))
	if len(lines) != len(orig)+2 || string(lines[0]) != "[" || string(lines[len(lines)-1]) != "]" {
		t.Fatalf("the fork's events.json has %d lines for %d events:\n%s", len(lines), len(orig), got)
	}
	for i, e := range orig {
		if l := bytes.TrimSuffix(lines[i+1], []byte(",")); !bytes.Equal(l, e.Raw) {
			t.Errorf("event %d:\n was %s\n now %s", i, e.Raw, l)
		}
	}
	if !bytes.Contains(got, []byte(`"future_field":{"k":[1,2]}`)) || !bytes.Contains(got, []byte(`"payload":{"a":[1,"\u2603"]}`)) {
		t.Fatalf("unknown field or event lost:\n%s", got)
	}
	if scans.n == 0 {
		t.Fatal("the fork did not read by the header scan")
	}
	// What it reads back is what the original reads as.
	b, err := sc.store.Events(ctx, sc.loc, nid)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, b, orig)
}

// conversationDirs is the user-local and checkout directories of the
// scene's conversation.
func conversationDirs(t *testing.T, sc *forkScene) []string {
	t.Helper()
	silo, err := sc.store.ConversationDir(context.Background(), workspace.Location{ID: sc.loc.ID}, sc.id)
	if err != nil {
		t.Fatal(err)
	}
	proj, err := sc.store.ConversationDir(context.Background(), sc.loc, sc.id)
	if err != nil {
		t.Fatal(err)
	}
	return []string{silo, proj}
}

// countingScans counts the header scans a fork makes.
type countingScans struct {
	ports.EventHeaderScanner
	n int
}

func (c *countingScans) ScanEventHeaders(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error) error {
	c.n++
	return c.EventHeaderScanner.ScanEventHeaders(ctx, loc, id, fn)
}

// A conversation in the Rust jp's form (events pretty-printed, without
// IDs, base64 tool payloads, a config_delta, a compaction and a type
// nobody knows) forks by the header scan into what the fork by a full
// read (a store without the header scan) makes: the same events, as JSON
// values, for every selection.
func TestForkRustConversation(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(map[bool]string{false: "as written", true: "one event a line"}[compact], func(t *testing.T) {
			forkRust(t, compact)
		})
	}
}

// forkRust is TestForkRustConversation on the fixture, its events.json
// pretty-printed as the Rust jp writes it (events on many lines are
// decoded whole), or compact, one event a line (as jp writes them: the
// header scan reads them).
func forkRust(t *testing.T, compact bool) {
	ctx := context.Background()
	ar, err := txtar.ParseFile("../adapters/fsstore/testdata/rustws.txtar")
	if err != nil {
		t.Fatal(err)
	}
	root := storetest.TempDir(t)
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if compact {
		compactEvents(t, filepath.Join(root, ".jp", "conversations", "17400000000-fix-the-build", "events.json"))
	}
	clock := storetest.NewClock(storetest.Start)
	st, err := fsstore.New(filepath.Join(storetest.TempDir(t), "data"), clock)
	if err != nil {
		t.Fatal(err)
	}
	f, err := st.Find(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Register(ctx, f); err != nil {
		t.Fatal(err)
	}
	loc := workspace.Location{ID: f.ID, Root: f.Root}
	const id = conversation.ID("17400000000")
	fast := app.NewConversations(st, st, clock)
	full := app.NewConversations(struct{ ports.ConversationStore }{st}, st, clock)
	for _, o := range []app.ForkOptions{{}, {Last: 1}, {First: 1}} {
		a, err := fast.ForkWith(ctx, loc, id, o)
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(1e9)
		b, err := full.ForkWith(ctx, loc, id, o)
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(1e9)
		got, err := st.Events(ctx, loc, a)
		if err != nil {
			t.Fatal(err)
		}
		want, err := st.Events(ctx, loc, b)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%+v: the fork has %d events, by a full read %d", o, len(got), len(want))
		}
		for i := range want {
			var x, y any
			if json.Unmarshal(want[i].Raw, &x) != nil || json.Unmarshal(got[i].Raw, &y) != nil || !reflect.DeepEqual(x, y) {
				t.Errorf("%+v: event %d:\n full read %s\n header scan %s", o, i, want[i].Raw, got[i].Raw)
			}
		}
	}
}

// compactEvents rewrites the events.json at p with one event a line.
func compactEvents(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var evs []json.RawMessage
	if err := json.Unmarshal(b, &evs); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.WriteString("[")
	for i, e := range evs {
		if i > 0 {
			out.WriteString(",")
		}
		out.WriteString("\n")
		if err := json.Compact(&out, e); err != nil {
			t.Fatal(err)
		}
	}
	out.WriteString("\n]\n")
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
