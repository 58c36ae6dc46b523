package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// RustFixture is the hand-written Rust jp workspace shared with the CLI
// scenarios (cmd/jp/testdata/script/rust_workspace.txtar).
const RustFixture = "testdata/rustws.txtar"

// unpackRust writes the Rust jp workspace fixture into a new checkout.
func unpackRust(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile(RustFixture)
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
	return root
}

// rawEvents reads an events.json as its elements, unparsed.
func rawEvents(t *testing.T, path string) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// sameJSON compares two JSON texts as values.
func sameJSON(a, b []byte) bool {
	var x, y any
	dx, dy := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	dx.UseNumber()
	dy.UseNumber()
	return dx.Decode(&x) == nil && dy.Decode(&y) == nil && reflect.DeepEqual(x, y)
}

// joinRaw joins events, one a line.
func joinRaw(evs []json.RawMessage) []byte {
	var out []byte
	for _, e := range evs {
		out = append(append(out, e...), '\n')
	}
	return out
}

// checkPrefix fails unless every original event is, as a JSON value, the
// event at the same position of got.
func checkPrefix(t *testing.T, what string, orig, got []json.RawMessage) {
	t.Helper()
	if len(got) < len(orig) {
		t.Fatalf("%s: %d events, want at least the %d original ones", what, len(got), len(orig))
	}
	for i := range orig {
		if !sameJSON(orig[i], got[i]) {
			t.Errorf("%s: event %d changed:\n was %s\n now %s", what, i, orig[i], got[i])
		}
	}
}

const (
	rustConv     = conversation.ID("17400000000")
	rustUntitled = conversation.ID("17400000100")
	rustArchived = conversation.ID("17300000000")
	rustConvDir  = "17400000000-fix-the-build"
)

func rustScene(t *testing.T) (*Store, *storetest.Clock, workspace.Location) {
	t.Helper()
	root := unpackRust(t)
	s, clock := newTestStore(t)
	ctx := context.Background()
	f, err := s.Find(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if f.ID != "ab3cd" {
		t.Fatalf("workspace ID %q, want ab3cd from the Rust jp's .id", f.ID)
	}
	if err := s.Register(ctx, f); err != nil {
		t.Fatal(err)
	}
	return s, clock, workspace.Location{ID: f.ID, Root: f.Root}
}

func TestRustWorkspaceIsListed(t *testing.T) {
	s, _, loc := rustScene(t)
	ctx := context.Background()
	sums, err := s.List(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[conversation.ID]conversation.Summary{}
	for _, sum := range sums {
		byID[sum.ID] = sum
	}
	if len(sums) != 3 {
		t.Fatalf("listed %d conversations, want 3: %+v", len(sums), sums)
	}
	c := byID[rustConv]
	if c.Metadata.Title != "Fix the build" || c.Metadata.EventsCount != 12 || c.Storage != conversation.StorageWorkspaceOnly {
		t.Errorf("slugged conversation: %+v", c)
	}
	if !c.Metadata.CreatedAt.Equal(rustConv.Time()) || c.Metadata.Archived() {
		t.Errorf("created_at %v (want the ID's time), archived %v", c.Metadata.CreatedAt, c.Metadata.Archived())
	}
	want := time.Date(2025, 2, 19, 21, 20, 11, 0, time.UTC)
	if !c.Metadata.LastActivatedAt.Equal(want) {
		t.Errorf("last_activated_at %v, want %v", c.Metadata.LastActivatedAt, want)
	}
	if u := byID[rustUntitled]; u.Metadata.Title != "" || u.Metadata.EventsCount != 3 {
		t.Errorf("untitled conversation: %+v", u)
	}
	if a := byID[rustArchived]; !a.Metadata.Archived() || a.Metadata.Title != "Old idea" {
		t.Errorf("archived conversation: %+v", a)
	}
	for _, id := range []conversation.ID{rustConv, rustUntitled, rustArchived} {
		got, err := s.Get(ctx, loc, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Metadata.EventsCount != byID[id].Metadata.EventsCount || got.Metadata.Archived() != byID[id].Metadata.Archived() {
			t.Errorf("Get %s = %+v, List gave %+v", id, got.Metadata, byID[id].Metadata)
		}
	}
}

func TestRustEventsAreDecoded(t *testing.T) {
	s, _, loc := rustScene(t)
	evs, err := s.Events(context.Background(), loc, rustConv)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 12 {
		t.Fatalf("%d events", len(evs))
	}
	if evs[4].CallID != "toolu_01A" || !sameJSON(evs[4].Arguments, []byte(`{"path":"Makefile","lines":["1","40"],"follow":true,"limit":200}`)) {
		t.Errorf("tool call: %+v %s", evs[4], evs[4].Arguments)
	}
	if evs[7].Content != "build:\n\tgo build ./cmd/missing\n" {
		t.Errorf("tool result: %q", evs[7].Content)
	}
	if evs[5].Question != "Read the file outside the workspace?" || evs[5].AnswerType != "boolean" {
		t.Errorf("inquiry: %+v", evs[5])
	}
	if evs[0].Kind != "config_delta" || evs[10].Kind != "compaction" || evs[11].Kind != "event_overlay" {
		t.Errorf("unknown kinds: %q %q %q", evs[0].Kind, evs[10].Kind, evs[11].Kind)
	}
}

// rustTurn is a turn jp appends to a Rust conversation.
func rustTurn(ts time.Time, root string) []conversation.Event {
	return []conversation.Event{
		{Type: conversation.EventTypeTurnStart, ID: "j1", Timestamp: ts, Root: root},
		{Type: conversation.EventTypeChatRequest, ID: "j2", Timestamp: ts, Content: "Fix it", Author: conversation.AuthorUser},
		{Type: conversation.EventTypeToolCallRequest, ID: "j3", Timestamp: ts, CallID: "call_j", Name: "fs_write", Arguments: json.RawMessage(`{"path":"Makefile","body":"build:\n\tgo build ./cmd/jp\n"}`)},
		{Type: conversation.EventTypeToolCallResponse, ID: "j4", Timestamp: ts, CallID: "call_j", Content: "written"},
		{Type: conversation.EventTypeChatResponse, ID: "j5", Timestamp: ts, Message: "Fixed."},
		{Type: conversation.EventTypeTurnEnd, ID: "j6", Timestamp: ts, Outcome: conversation.OutcomeCompleted},
	}
}

// TestContinueRustConversation: jp continues a conversation whose events
// have no IDs; every original event stays the same JSON value in the
// projection and the user-local copy, base_config.json goes with it, and
// what jp added is in the Rust jp's form.
func TestContinueRustConversation(t *testing.T) {
	s, clock, loc := rustScene(t)
	ctx := context.Background()
	proj := filepath.Join(loc.Root, ".jp", "conversations", rustConvDir)
	orig := rawEvents(t, filepath.Join(proj, "events.json"))
	origBase, err := os.ReadFile(filepath.Join(proj, "base_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, loc, rustConv, rustTurn(clock.Now(), loc.Root)...); err != nil {
		t.Fatal(err)
	}
	now := eventcodec.FormatTime(clock.Now(), conversation.FormatRust)
	silo, err := s.siloDir(loc.ID)
	if err != nil || silo == "" {
		t.Fatalf("silo %q, %v", silo, err)
	}
	local := filepath.Join(silo, "conversations", rustConvDir)
	for _, dir := range []string{proj, local} {
		got := rawEvents(t, filepath.Join(dir, "events.json"))
		checkPrefix(t, dir, orig, got)
		if len(got) != len(orig)+6 {
			t.Fatalf("%s: %d events, want %d", dir, len(got), len(orig)+6)
		}
		added := joinRaw(got[len(orig):])
		for _, want := range []string{`"timestamp":"` + now + `"`, `"id":"call_j"`, `"content":"d3JpdHRlbg=="`,
			`"type":"turn_start","timestamp":"` + now + `","metadata":{"event_id":"ajE=","root":`, `"type":"turn_end"`} {
			if !bytes.Contains(added, []byte(want)) {
				t.Errorf("%s: appended events lack %s:\n%s", dir, want, added)
			}
		}
		if bytes.Contains(added, []byte(`"call_id"`)) {
			t.Errorf("%s: jp's call_id in a Rust jp workspace:\n%s", dir, added)
		}
		base, err := os.ReadFile(filepath.Join(dir, "base_config.json"))
		if err != nil || !bytes.Equal(base, origBase) {
			t.Errorf("%s: base_config.json %q, %v", dir, base, err)
		}
		meta, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"expires_at": null`, `"local": false`, `"created_at": "2025-02-19 21:20:00.000000"`, `"events_count": 18`, `"last_activated_at": "` + now + `"`} {
			if !strings.Contains(string(meta), want) {
				t.Errorf("%s: metadata.json lacks %s:\n%s", dir, want, meta)
			}
		}
	}
	if names, _ := readDirNames(filepath.Join(silo, "conversations")); len(names) != 1 || names[0] != rustConvDir {
		t.Errorf("silo conversations %v, want the Rust jp's directory name", names)
	}
	evs, err := s.Events(ctx, loc, rustConv)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 18 || evs[12].ID != "j1" || evs[12].Root != loc.Root || evs[14].CallID != "call_j" {
		t.Errorf("events read back: %d, %+v", len(evs), evs[12:])
	}
}

// TestRustCrashRepairKeepsEvents: a half-written events.log line makes the
// next writer rewrite events.json; the Rust jp's events stay as they were.
func TestRustCrashRepairKeepsEvents(t *testing.T) {
	s, clock, loc := rustScene(t)
	ctx := context.Background()
	proj := filepath.Join(loc.Root, ".jp", "conversations", rustConvDir)
	orig := rawEvents(t, filepath.Join(proj, "events.json"))
	turn := rustTurn(clock.Now(), loc.Root)
	if err := s.Append(ctx, loc, rustConv, turn[:2]...); err != nil {
		t.Fatal(err)
	}
	silo, _ := s.siloDir(loc.ID)
	local := filepath.Join(silo, "conversations", rustConvDir)
	f, err := os.OpenFile(filepath.Join(local, "events.log"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"chat_response","event_id":"half","timestamp":"2024-04-`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// A new process: no cached stream, so the repair runs.
	s2, err := New(s.DataDir(), clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Append(ctx, loc, rustConv, turn[2:]...); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{local, proj} {
		got := rawEvents(t, filepath.Join(dir, "events.json"))
		checkPrefix(t, dir, orig, got)
		if len(got) != len(orig)+len(turn) {
			t.Errorf("%s: %d events, want %d", dir, len(got), len(orig)+len(turn))
		}
		if bytes.Contains(joinRaw(got), []byte("half")) {
			t.Errorf("%s: the cut line was kept", dir)
		}
	}
}

// TestNewConversationInRustWorkspace: a conversation jp creates in a Rust
// jp workspace is named and dated the Rust jp's way.
func TestNewConversationInRustWorkspace(t *testing.T) {
	s, clock, loc := rustScene(t)
	ctx := context.Background()
	id, err := s.Create(ctx, loc, ports.NewConversation{Title: "Ship it: v2.0!"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(loc.Root, ".jp", "conversations", string(id)+"-ship-it--v2-0")
	meta, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		t.Fatalf("projection not named the Rust jp's way: %v", err)
	}
	now := eventcodec.FormatTime(clock.Now(), conversation.FormatRust)
	if !strings.Contains(string(meta), `"last_activated_at": "`+now+`"`) || strings.Contains(string(meta), "Z\"") {
		t.Errorf("metadata.json not in the Rust jp's time format:\n%s", meta)
	}
	if err := s.Append(ctx, loc, id, rustTurn(clock.Now(), loc.Root)...); err != nil {
		t.Fatal(err)
	}
	evs := rawEvents(t, filepath.Join(dir, "events.json"))
	if len(evs) != 6 || !bytes.Contains(evs[0], []byte(`"metadata":{"event_id"`)) {
		t.Errorf("events: %s", joinRaw(evs))
	}
	untitled, err := s.Create(ctx, loc, ports.NewConversation{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := exists(filepath.Join(loc.Root, ".jp", "conversations", string(untitled), "metadata.json")); !ok {
		t.Error("an untitled conversation is not named by its ID")
	}
}

func TestRustDirName(t *testing.T) {
	for _, tt := range []struct{ title, want string }{
		{"", "17"},
		{"  Fix the build  ", "17-fix-the-build"},
		{"Ship it: v2.0!", "17-ship-it--v2-0"},
		{"Über café", "17-über-café"},
		{strings.Repeat("word ", 20), "17-" + strings.TrimSuffix(strings.Repeat("word-", 12), "-word-")},
	} {
		if got := rustDirName("17", tt.title); got != tt.want {
			t.Errorf("rustDirName(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

// TestArchiveInRustWorkspace: archiving moves the directories into the
// Rust jp's .archive/, unarchiving moves them out.
func TestArchiveInRustWorkspace(t *testing.T) {
	s, clock, loc := rustScene(t)
	ctx := context.Background()
	convs := filepath.Join(loc.Root, ".jp", "conversations")
	if err := s.UpdateMetadata(ctx, loc, rustArchived, func(m *conversation.Metadata) error {
		m.ArchivedAt = nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	silo, _ := s.siloDir(loc.ID)
	for _, dir := range []string{convs, filepath.Join(silo, "conversations")} {
		if ok, _ := exists(filepath.Join(dir, "17300000000-old-idea", "events.json")); !ok {
			t.Errorf("unarchived conversation not moved out of %s/.archive", dir)
		}
	}
	if got, err := s.Get(ctx, loc, rustArchived); err != nil || got.Metadata.Archived() {
		t.Errorf("after unarchive: %+v, %v", got.Metadata, err)
	}
	now := clock.Now()
	if err := s.UpdateMetadata(ctx, loc, rustConv, func(m *conversation.Metadata) error {
		m.ArchivedAt = &now
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{convs, filepath.Join(silo, "conversations")} {
		if ok, _ := exists(filepath.Join(dir, ".archive", rustConvDir, "base_config.json")); !ok {
			t.Errorf("archived conversation not in %s/.archive", dir)
		}
		if ok, _ := exists(filepath.Join(dir, rustConvDir)); ok {
			t.Errorf("archived conversation left in %s", dir)
		}
	}
	sums, err := s.List(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	for _, sum := range sums {
		if (sum.ID == rustConv) != sum.Metadata.Archived() {
			t.Errorf("%s archived = %v", sum.ID, sum.Metadata.Archived())
		}
	}
	if err := s.Append(ctx, loc, rustConv, rustTurn(now, loc.Root)...); err != nil {
		t.Fatalf("append to an archived conversation: %v", err)
	}
}

// TestStorageDocRustExample: the stored tool call shown in docs/storage.md
// is what jp writes in a Rust jp workspace.
func TestStorageDocRustExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/storage.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "## Coming from the Rust jp")
	if !ok {
		t.Fatal(`docs/storage.md has no "Coming from the Rust jp" section`)
	}
	_, block, ok := strings.Cut(sec, "```json\n")
	block, _, ok2 := strings.Cut(block, "\n```")
	if !ok || !ok2 {
		t.Fatal("the section has no json example")
	}
	e := conversation.Event{
		Type: conversation.EventTypeToolCallRequest, ID: "a1b2c3d4e5f60718",
		Timestamp: time.Date(2025, 2, 19, 21, 25, 0, 0, time.UTC),
		CallID:    "call_1", Name: "fs_read_file", Arguments: json.RawMessage(`{"path":"Makefile"}`),
	}
	got, err := eventcodec.Stored(e, conversation.FormatRust)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != block {
		t.Errorf("docs/storage.md shows\n%s\njp writes\n%s", block, got)
	}
	var back conversation.Event
	if err := json.Unmarshal([]byte(block), storedForm(&back)); err != nil || back.CallID != "call_1" || string(back.Arguments) != `{"path":"Makefile"}` {
		t.Errorf("the example reads back as %+v, %v", back, err)
	}
}
