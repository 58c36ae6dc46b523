package fsstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/eventcodec"
	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// snapCorpus is the stored form of events of every shape a snapshot must
// give back as a plain read does: jp's own (escapes, unicode, usage,
// files, attachments), unknown types and fields, a compaction overlay, a
// config_delta, events without an ID, and the Rust jp's workspace's.
func snapCorpus(t *testing.T) []json.RawMessage {
	t.Helper()
	ev := storetest.NewEventMaker("snap-", storetest.Start)
	var out []json.RawMessage
	add := func(e conversation.Event) {
		b, err := eventcodec.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	for _, e := range ev.Turn("/w", "a \"quoted\"\nline é ✓ \u2028", 2) {
		add(e)
	}
	req := ev.ChatRequest("see the file")
	req.Attachments = []conversation.Attachment{{Source: "a.txt", MediaType: "text/plain", Content: "hello", Size: 5, SHA256: "ab"}}
	add(req)
	resp := ev.Message("done")
	resp.Model, resp.Usage, resp.StopReason = "demo/echo", &conversation.Usage{InputTokens: 7, OutputTokens: 3, CacheReadTokens: 1}, "end_turn"
	add(resp)
	call := ev.ToolCall("write_file")
	res := ev.ToolResult(call, "")
	res.IsError, res.Files = true, []string{"a.go", "dir/b.go", ""}
	add(call)
	add(res)
	out = append(out,
		json.RawMessage(`{"type":"future_event","timestamp":"2026-01-01T00:00:00Z","event_id":"f1","shape":[1,{"x":"y"}]}`),
		json.RawMessage(`{"type":"chat_request","timestamp":"2026-01-01T00:00:01+02:00","content":"tz","future_field":{"a":1},"event_id":"f2"}`),
		json.RawMessage(`{"type":"compaction","timestamp":"2020-01-01 00:00:00.123","from_turn":0,"to_turn":2,"reasoning":"strip","future":{"x":[1,2]}}`),
		json.RawMessage(`{"type":"chat_request","timestamp":"2026-01-01T00:00:02Z","content":"no id"}`),
		json.RawMessage(`{"type":"config_delta","timestamp":"2026-01-01T00:00:03Z","delta":{"assistant":{"model":{"id":"demo/echo"}}},"event_id":"f3"}`))
	out = append(out, rawEvents(t, filepath.Join(unpackRust(t), ".jp/conversations/17400000000-fix-the-build/events.json"))...)
	return out
}

// writeArray writes evs as events.json of dir, copies times over (at
// least min bytes), one element a line.
func writeArray(t *testing.T, dir string, evs []json.RawMessage, min int) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("[\n")
	for i := 0; i == 0 || b.Len() < min; i++ {
		for k, e := range evs {
			if i > 0 || k > 0 {
				b.WriteString(",\n")
			}
			b.Write(e)
		}
	}
	b.WriteString("\n]\n")
	if err := os.WriteFile(filepath.Join(dir, eventsFile), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readEvents reads dir's events.json through the snapshot (snap) or
// plainly, as ScanEvents does.
func readEvents(t *testing.T, dir string, snap bool) []conversation.Event {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, eventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var evs []conversation.Event
	each := func(e conversation.Event) error { evs = append(evs, e); return nil }
	if snap {
		err = jsonEvents(dir, f, each, false)
	} else {
		err = eventcodec.EachEventRead(f, each)
	}
	if err != nil {
		t.Fatalf("read (snapshot %v): %v", snap, err)
	}
	return evs
}

// sameAsPlain checks that a read through the snapshot gives the events a
// plain read gives, field for field.
func sameAsPlain(t *testing.T, dir, what string) {
	t.Helper()
	want := readEvents(t, dir, false)
	got := readEvents(t, dir, true)
	if len(got) != len(want) {
		t.Fatalf("%s: %d events through the snapshot, %d plainly", what, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: event %d differs:\n got %#v\nwant %#v", what, i, got[i], want[i])
		}
	}
}

func snapExists(t *testing.T, dir string) bool {
	_, err := os.Stat(filepath.Join(dir, historySnapFile))
	return err == nil
}

// A snapshot-backed read gives the events a plain read gives, for every
// shape of event; the snapshot is made on the first read of a large
// events.json and then used (its blocks give the events).
func TestSnapshotReadIsPlainRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := snapCorpus(t)
	writeArray(t, dir, corpus, 3*snapBlockSize)
	sameAsPlain(t, dir, "first read")
	if !snapExists(t, dir) {
		t.Fatalf("no snapshot after reading a large events.json")
	}
	blocks := readSnapshot(dir)
	if len(blocks) < 3 {
		t.Fatalf("snapshot has %d blocks, want 3 or more", len(blocks))
	}
	sameAsPlain(t, dir, "read through the snapshot")
	f, err := os.Open(filepath.Join(dir, eventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	valid, end, n, err := snapReplay(f, blocks, func(conversation.Event) error { return nil }, false)
	if err != nil || len(valid) != len(blocks) || end != blocks[len(blocks)-1].end || n == 0 {
		t.Fatalf("replay: %d of %d blocks valid, end %d, %d events, %v", len(valid), len(blocks), end, n, err)
	}
}

// A small conversation gets no snapshot: decoding it costs less.
func TestSnapshotNotMadeForSmall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeArray(t, dir, snapCorpus(t)[:6], 0)
	sameAsPlain(t, dir, "small")
	if snapExists(t, dir) {
		t.Fatalf("a snapshot was made for a small events.json")
	}
}

// Every change of events.json under a snapshot gives the new events:
// appended events (decoded past it), a rewrite of the same length (a
// repair, a rewrite in place), fewer events (a rewind, a compaction), an
// emptied file; and a snapshot that does not read is ignored and rebuilt.
func TestSnapshotFollowsEventsJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := snapCorpus(t)
	orig := writeArray(t, dir, corpus, 2*snapBlockSize)
	sameAsPlain(t, dir, "build")
	path := filepath.Join(dir, eventsFile)

	grown := append(bytes.Clone(bytes.TrimSuffix(orig, []byte("\n]\n"))), []byte(",\n"+string(corpus[0])+"\n]\n")...)
	writeFile(t, path, grown)
	sameAsPlain(t, dir, "appended")

	i := bytes.LastIndex(orig[:len(orig)/2], []byte("nline")) // "\nline" -> "\nlinf"
	if i < 0 {
		t.Fatal("no marker in events.json")
	}
	same := bytes.Clone(orig)
	same[i+4]++

	writeFile(t, path, same)
	sameAsPlain(t, dir, "same length, a byte changed")
	writeFile(t, path, orig)
	sameAsPlain(t, dir, "back")

	cut := bytes.LastIndex(orig[:len(orig)*2/3], []byte("},\n{")) + 1
	writeFile(t, path, append(bytes.Clone(orig[:cut]), "\n]\n"...))
	sameAsPlain(t, dir, "fewer events")
	writeFile(t, path, []byte("[]\n"))
	sameAsPlain(t, dir, "emptied")

	writeFile(t, path, orig)
	sameAsPlain(t, dir, "rebuilt")
	snap := filepath.Join(dir, historySnapFile)
	good, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	for what, b := range map[string][]byte{
		"cut": good[:len(good)/2], "a byte flipped": flip(good, len(good)/3), "empty": nil,
		"another version": bytes.Replace(good, []byte(snapMagic+"\x01"), []byte(snapMagic+"\x09"), 1),
	} {
		writeFile(t, snap, b)
		sameAsPlain(t, dir, "snapshot "+what)
	}
}

func flip(b []byte, i int) []byte {
	b = bytes.Clone(b)
	b[i] ^= 0x40
	return b
}

// An events.json that is not valid past the snapshot is reported as
// corrupt, as a plain read reports it.
func TestSnapshotCorruptTailIsReported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	orig := writeArray(t, dir, snapCorpus(t), snapBlockSize)
	readEvents(t, dir, true)
	broken := append(bytes.Clone(bytes.TrimSuffix(orig, []byte("\n]\n"))), ",\n{\"type\":\n"...)
	writeFile(t, filepath.Join(dir, eventsFile), broken)
	f, err := os.Open(filepath.Join(dir, eventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if err := jsonEvents(dir, f, func(conversation.Event) error { return nil }, false); err == nil {
		t.Fatalf("a cut events.json read without an error through the snapshot")
	}
}

// Through the store: a long conversation's scans give its events as
// Events does, with the snapshot kept in the user-local copy (never in
// the checkout), and after a turn appended and folded.
func TestSnapshotThroughTheStore(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	var all []conversation.Event
	for i := 0; i < 400; i++ {
		turn := sc.ev.Turn(sc.root, fmt.Sprintf("question %d %s", i, strings.Repeat("x", 100)), 2)
		all = append(all, turn...)
	}
	sc.append(t, sc.loc, id, all...)
	storetest.SameEvents(t, scanAll(t, sc.s, sc, id), all)
	conv := sc.siloConv(t, id)
	if !snapExists(t, conv) {
		t.Fatalf("no snapshot in the user-local copy %s", conv)
	}
	next := sc.ev.Turn(sc.root, "again", 1)
	sc.append(t, sc.loc, id, next...)
	all = append(all, next...)
	storetest.SameEvents(t, scanAll(t, sc.s, sc, id), all)
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, scanAll(t, sc.s, sc, id), evs)
	err = filepath.Walk(sc.root, func(p string, _ os.FileInfo, err error) error {
		if err == nil && filepath.Base(p) == historySnapFile {
			t.Errorf("a history snapshot in the checkout: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// conversation.Event's fields are pinned: a snapshot records some of them
// (snapshot_codec.go); a new field must be recorded there (or make its
// events recJSON), and changes eventShape, which rebuilds old snapshots.
func TestSnapshotKnowsEveryEventField(t *testing.T) {
	t.Parallel()
	var names []string
	for f := range reflect.TypeFor[conversation.Event]().Fields() {
		names = append(names, f.Name)
	}
	want := "Type ID Timestamp Root Content Author Schema Attachments Message Reasoning Signature Model Usage StopReason " +
		"CallID Name Arguments IsError Files InquiryID Question Answer AnswerType Outcome Kind Delta Compaction Metadata Legacy Raw"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("conversation.Event's fields changed; update snapshot_codec.go and this list:\n got %s\nwant %s", got, want)
	}
}

// jp's own events come back from a snapshot's records, not decoded from
// JSON: a read of thousands of them allocates per block, not per event.
func TestSnapshotRecordsAreNotDecoded(t *testing.T) {
	dir := t.TempDir()
	ev := storetest.NewEventMaker("own-", storetest.Start)
	var evs []json.RawMessage
	for i := range 20 {
		for _, e := range ev.Turn("/w", fmt.Sprintf("question %d\twith \"escapes\"", i), 2) {
			b, err := eventcodec.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, b)
		}
	}
	writeArray(t, dir, evs, 2*snapBlockSize)
	n := len(readEvents(t, dir, true))
	f, err := os.Open(filepath.Join(dir, eventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := f.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		if err := jsonEvents(dir, f, func(conversation.Event) error { return nil }, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > float64(n)/100 {
		t.Fatalf("a read of %d events through the snapshot made %.0f allocations: its events were decoded", n, allocs)
	}
}

// A transient scan (ports.TransientEventScanner) gives the events a scan
// gives, each whole while fn has it, through the snapshot too.
func TestSnapshotTransientScanIsScan(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	var all []conversation.Event
	for i := 0; i < 600; i++ {
		all = append(all, sc.ev.Turn(sc.root, fmt.Sprintf("question %d %s", i, strings.Repeat("y", 200)), 2)...)
	}
	sc.append(t, sc.loc, id, all...)
	var _ ports.TransientEventScanner = sc.s
	for round := range 2 { // the first makes the snapshot, the second reads it
		var want, got [][]byte
		for _, tr := range []bool{false, true} {
			var out [][]byte
			err := sc.s.scanEvents(t.Context(), sc.loc, id, func(e conversation.Event) error {
				b, err := eventcodec.Marshal(e)
				out = append(out, append([]byte(e.ID+" "), b...))
				return err
			}, scanMode{transient: tr})
			if err != nil {
				t.Fatal(err)
			}
			if tr {
				got = out
			} else {
				want = out
			}
		}
		if len(got) != len(want) || len(got) != len(all) {
			t.Fatalf("round %d: %d events transient, %d not, %d appended", round, len(got), len(want), len(all))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("round %d: event %d:\n got %s\nwant %s", round, i, got[i], want[i])
			}
		}
	}
	if !snapExists(t, sc.siloConv(t, id)) {
		t.Fatalf("no snapshot")
	}
}
