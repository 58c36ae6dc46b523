package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

func TestAppendGoesToTheLogUntilTheTurnEnds(t *testing.T) {
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	conv := sc.siloConv(t, id)
	proj := filepath.Join(sc.root, ".jp", "conversations", string(id))
	folded := readFile(t, filepath.Join(conv, "events.json"))
	projected := readFile(t, filepath.Join(proj, "events.json"))

	turn := sc.ev.Turn(sc.root, "q", 1) // start, request, call, result, message, end
	for _, e := range turn[:4] {
		sc.append(t, sc.loc, id, e)
	}
	if got := readFile(t, filepath.Join(conv, "events.json")); !bytes.Equal(got, folded) {
		t.Errorf("events.json was rewritten before the turn ended")
	}
	if got := readFile(t, filepath.Join(proj, "events.json")); !bytes.Equal(got, projected) {
		t.Errorf("the projection was rewritten before the turn ended")
	}
	if lines := strings.Count(string(readFile(t, filepath.Join(conv, "events.log"))), "\n"); lines != 4 {
		t.Errorf("events.log has %d lines, want 4", lines)
	}
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, evs, turn[:4])

	sc.append(t, sc.loc, id, turn[4:]...)
	if ok, _ := exists(filepath.Join(conv, "events.log")); ok {
		t.Errorf("events.log still exists after turn_end")
	}
	want, _ := eventcodec.EncodeEvents(turn)
	if got := readFile(t, filepath.Join(conv, "events.json")); !bytes.Equal(got, want) {
		t.Errorf("folded events.json =\n%s\nwant\n%s", got, want)
	}
	if got := readFile(t, filepath.Join(proj, "events.json")); !bytes.Equal(got, want) {
		t.Errorf("projected events.json is not the folded one")
	}
}

func TestLogFoldsPastTheThreshold(t *testing.T) {
	const threshold = 2048
	sc := newScene(t, WithFoldThreshold(threshold))
	id := sc.create(t, ports.NewConversation{})
	conv := sc.siloConv(t, id)
	sc.append(t, sc.loc, id, sc.ev.TurnStart(sc.root), sc.ev.ChatRequest("long"))
	var want []conversation.Event
	for i := range 60 {
		e := sc.ev.Message(fmt.Sprintf("chunk %d %s", i, strings.Repeat("x", 100)))
		want = append(want, e)
		sc.append(t, sc.loc, id, e)
		size, err := fileSize(filepath.Join(conv, "events.log"))
		if err != nil || size >= threshold {
			t.Fatalf("events.log is %d bytes (%v), want it folded below %d", size, err, threshold)
		}
	}
	n, err := eventcodec.DecodeEvents(readFile(t, filepath.Join(conv, "events.json")))
	if err != nil || len(n) < 40 {
		t.Fatalf("events.json holds %d events (%v) mid-turn, want most of them folded", len(n), err)
	}
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil || len(evs) != 62 {
		t.Fatalf("Events = %d, %v; want 62", len(evs), err)
	}
	storetest.SameEvents(t, evs[2:], want)
}

func TestProjectionSyncKeepsOtherFiles(t *testing.T) {
	sc := newScene(t)
	ctx := t.Context()
	id := sc.create(t, ports.NewConversation{Title: "t"})
	proj := filepath.Join(sc.root, ".jp", "conversations", string(id))
	conv := sc.siloConv(t, id)
	notes := []byte("someone's notes\n")
	writeFile(t, filepath.Join(proj, "NOTES.md"), notes)
	if _, err := sc.s.WriteDraft(ctx, sc.loc, id, "draft text\n", ""); err != nil {
		t.Fatal(err)
	}
	if err := sc.s.UpdateLocalMetadata(ctx, sc.loc, id, func(m *conversation.LocalMetadata) error {
		m.Extra = map[string]json.RawMessage{"future": json.RawMessage(`1`)}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	draft := readFile(t, filepath.Join(conv, "QUERY_MESSAGE.md"))
	local := readFile(t, filepath.Join(conv, "metadata.local.json"))
	projInfo, err := os.Stat(proj)
	if err != nil {
		t.Fatal(err)
	}
	siloInfo, err := os.Stat(conv)
	if err != nil {
		t.Fatal(err)
	}

	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 2)...)
	if err := sc.s.UpdateMetadata(ctx, sc.loc, id, func(m *conversation.Metadata) error { m.Title = "renamed"; return nil }); err != nil {
		t.Fatal(err)
	}
	sc.append(t, sc.loc, id, sc.ev.TurnStart(sc.root)) // leaves a log behind
	if err := sc.s.UpdateMetadata(ctx, sc.loc, id, func(m *conversation.Metadata) error { m.Title = "again"; return nil }); err != nil {
		t.Fatal(err)
	}

	if got := readFile(t, filepath.Join(proj, "NOTES.md")); !bytes.Equal(got, notes) {
		t.Errorf("a file beside the projected ones changed: %q", got)
	}
	if got := dirNames(t, proj); !sameSet(got, []string{"NOTES.md", "events.json", "metadata.json"}) {
		t.Errorf("projection holds %v", got)
	}
	if got := readFile(t, filepath.Join(conv, "QUERY_MESSAGE.md")); !bytes.Equal(got, draft) {
		t.Errorf("the draft changed during sync")
	}
	if got := readFile(t, filepath.Join(conv, "metadata.local.json")); !bytes.Equal(got, local) {
		t.Errorf("metadata.local.json changed during sync")
	}
	for dir, before := range map[string]os.FileInfo{proj: projInfo, conv: siloInfo} {
		after, err := os.Stat(dir)
		if err != nil || !os.SameFile(before, after) {
			t.Errorf("directory %s was replaced (%v)", dir, err)
		}
	}
	// UpdateMetadata folded the log so that the projection is whole.
	evs, err := eventcodec.DecodeEvents(readFile(t, filepath.Join(proj, "events.json")))
	if err != nil || len(evs) != 9 {
		t.Fatalf("projected events = %d, %v; want 9", len(evs), err)
	}
	var m conversation.Metadata
	if err := json.Unmarshal(readFile(t, filepath.Join(proj, "metadata.json")), storedForm(&m)); err != nil || m.Title != "again" || m.EventsCount != 9 {
		t.Fatalf("projected metadata = %+v, %v", m, err)
	}
}

func TestLogRepair(t *testing.T) {
	sc := newScene(t)
	ctx := t.Context()
	id := sc.create(t, ports.NewConversation{})
	conv := sc.siloConv(t, id)
	turn := sc.ev.Turn(sc.root, "q", 1)
	sc.append(t, sc.loc, id, turn...)
	logPath := filepath.Join(conv, "events.log")

	// A fold that crashed after renaming events.json, before removing the log.
	var stale bytes.Buffer
	for _, e := range turn[len(turn)-2:] {
		b, _ := json.Marshal(storedForm(e))
		stale.Write(append(b, '\n'))
	}
	// And a write cut short by a crash.
	stale.WriteString(`{"type":"turn_start","id":"half`)
	writeFile(t, logPath, stale.Bytes())

	fresh, err := New(sc.s.DataDir(), sc.clock)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := fresh.Events(ctx, sc.loc, id)
	if err != nil {
		t.Fatalf("Events with a stale log: %v", err)
	}
	storetest.SameEvents(t, evs, turn)
	if got := readFile(t, logPath); !bytes.Equal(got, stale.Bytes()) {
		t.Fatalf("reading changed the log")
	}
	next := sc.ev.Turn(sc.root, "after the crash", 0)
	if err := fresh.Append(ctx, sc.loc, id, next[0]); err != nil {
		t.Fatalf("Append after a crash: %v", err)
	}
	if err := fresh.Append(ctx, sc.loc, id, next[1:]...); err != nil {
		t.Fatalf("Append after a crash: %v", err)
	}
	evs, err = fresh.Events(ctx, sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameEvents(t, evs, append(turn, next...))
}

func TestAnotherWriterInvalidatesTheCache(t *testing.T) {
	sc := newScene(t)
	ctx := t.Context()
	id := sc.create(t, ports.NewConversation{})
	sc.append(t, sc.loc, id, sc.ev.TurnStart(sc.root))
	other, err := New(sc.s.DataDir(), sc.clock)
	if err != nil {
		t.Fatal(err)
	}
	call := sc.ev.ToolCall("grep")
	if err := other.Append(ctx, sc.loc, id, call); err != nil {
		t.Fatal(err)
	}
	// The first store must see the open call the other process added.
	if err := sc.s.Append(ctx, sc.loc, id, sc.ev.TurnEnd(conversation.OutcomeCompleted)); err == nil {
		t.Fatalf("turn_end with a call opened by another writer was accepted")
	}
	sc.append(t, sc.loc, id, sc.ev.ToolResult(call, "ok"), sc.ev.TurnEnd(conversation.OutcomeCompleted))
	if err := other.Append(ctx, sc.loc, id, sc.ev.TurnStart(sc.root)); err != nil {
		t.Fatalf("other writer after a fold: %v", err)
	}
}

func TestConcurrentWriters(t *testing.T) {
	sc := newScene(t)
	ctx := t.Context()
	ids := make([]conversation.ID, 4)
	for i := range ids {
		ids[i] = sc.create(t, ports.NewConversation{Title: fmt.Sprint(i)})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i, id := range ids {
		ev := storetest.NewEventMaker(fmt.Sprintf("w%d-", i), storetest.Start)
		wg.Go(func() {
			for range 5 {
				if err := sc.s.Append(ctx, sc.loc, id, ev.Turn(sc.root, "q", 1)...); err != nil {
					errs <- err
				}
			}
		})
	}
	// Two goroutines appending to one conversation serialise.
	shared := ids[0]
	for i := range 2 {
		ev := storetest.NewEventMaker(fmt.Sprintf("s%d-", i), storetest.Start)
		wg.Go(func() {
			for range 5 {
				if err := sc.s.Append(ctx, sc.loc, shared, ev.Message("x")); err != nil && !strings.Contains(err.Error(), "outside a turn") {
					errs <- err
				}
			}
		})
	}
	wg.Go(func() {
		for range 10 {
			if _, err := sc.s.List(ctx, sc.loc); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, id := range ids {
		evs, err := sc.s.Events(ctx, sc.loc, id)
		if err != nil || conversation.Validate(evs) != nil {
			t.Fatalf("conversation %s after concurrent appends: %v / %v", id, err, conversation.Validate(evs))
		}
	}
}

func TestStaleTempFilesAreSwept(t *testing.T) {
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	proj := filepath.Join(sc.root, ".jp", "conversations", string(id))
	old := filepath.Join(proj, ".events.json.tmp-123")
	fresh := filepath.Join(proj, ".metadata.json.tmp-456")
	siloOld := filepath.Join(sc.siloConv(t, id), ".events.json.tmp-789")
	for _, p := range []string{old, fresh, siloOld} {
		writeFile(t, p, []byte("partial"))
	}
	long := time.Now().Add(-time.Hour)
	for _, p := range []string{old, siloOld} {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 0)...)
	for p, want := range map[string]bool{old: false, siloOld: false, fresh: true} {
		if ok, _ := exists(p); ok != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), ok, want)
		}
	}
}
