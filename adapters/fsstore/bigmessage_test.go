package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// roundTripSize is the size of the message the round-trip tests store:
// 20 MB, or 2 MB under the race detector (still many pieces of the
// encoder, far past the size from which a string is kept apart).
func roundTripSize() int {
	if raceBuild {
		return 2 << 20
	}
	return 20 << 20
}

// bigText is a message of size bytes (20 MB), a pasted log: mostly plain lines, and every
// few KiB what JSON escapes or must keep as it is (quotes, backslashes,
// control and HTML characters, U+2028, multi-byte UTF-8 that the
// encoder's pieces may cut through).
func bigText(size int) string {
	odd := "a \"quoted\" C:\\path\t<b>&amp;</b> caf\u00e9 \u65e5\u672c \U0001F600 \u2028 \x01 end\n"
	block := strings.Repeat("2026-12-01 20:41:07 INFO request served in 12 ms\n", 80) + odd
	return strings.Repeat(block, size/len(block))
}

// storedContents decodes a stored events.json with encoding/json and
// returns the events' "content" fields.
func storedContents(t *testing.T, path string) []string {
	t.Helper()
	var evs []struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(readFile(t, path), &evs); err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Content)
	}
	return out
}

// A 20 MB message, appended with the events around it in one batch and
// kept in the log, is the line encoding/json writes, and it reads back
// as the same text; folded at the turn end, events.json (and its copy
// in the checkout) decodes to the same text.
func TestBigMessageRoundTrips(t *testing.T) {
	t.Parallel()
	big := bigText(roundTripSize())
	sc := newScene(t, WithFoldThreshold(64<<20)) // the message stays in the log
	id := sc.create(t, ports.NewConversation{})
	conv := sc.siloConv(t, id)
	req := sc.ev.ChatRequest(big)
	batch := []conversation.Event{sc.ev.TurnStart(sc.root), req, sc.ev.Message("ok")}
	sc.append(t, sc.loc, id, batch...)

	// The line written in pieces is the event's encoding in one piece
	// (FuzzAppendJSONString checks that one against encoding/json), and
	// holds the message as encoding/json writes a string.
	want := new(bytes.Buffer)
	for _, e := range batch {
		b, err := eventcodec.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		want.Write(b)
		want.WriteByte('\n')
	}
	logged := readFile(t, filepath.Join(conv, logFile))
	if !bytes.Equal(logged, want.Bytes()) {
		t.Fatalf("events.log (%d bytes) differs from the events' lines (%d bytes)", len(logged), want.Len())
	}
	quoted, err := json.Marshal(big)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(logged, append([]byte(`"content":`), quoted...)) {
		t.Fatalf("events.log does not hold the message as encoding/json writes it")
	}
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[1].Content != big {
		t.Fatalf("the message read back from the log is not the one appended (%d events)", len(evs))
	}

	sc.append(t, sc.loc, id, sc.ev.TurnEnd(conversation.OutcomeCompleted))
	folded := filepath.Join(conv, eventsFile)
	if got := storedContents(t, folded); len(got) != 4 || got[1] != big {
		t.Fatalf("events.json does not hold the message as it was appended")
	}
	proj := filepath.Join(sc.root, ".jp", "conversations", string(id), eventsFile)
	if !bytes.Equal(readFile(t, proj), readFile(t, folded)) {
		t.Fatalf("the checkout's events.json is not the folded one")
	}
}

// A big message alone (20 MB) goes past the fold threshold: it is folded at
// once, read back from the log it was streamed into.
func TestBigMessageFoldsAtOnce(t *testing.T) {
	t.Parallel()
	big := bigText(roundTripSize())
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	conv := sc.siloConv(t, id)
	sc.append(t, sc.loc, id, sc.ev.TurnStart(sc.root))
	sc.append(t, sc.loc, id, sc.ev.ChatRequest(big))
	if ok, _ := exists(filepath.Join(conv, logFile)); ok {
		t.Errorf("events.log still exists after a 20 MB append")
	}
	if got := storedContents(t, filepath.Join(conv, eventsFile)); len(got) != 2 || got[1] != big {
		t.Fatalf("events.json does not hold the message as it was appended")
	}
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil || len(evs) != 2 || evs[1].Content != big {
		t.Fatalf("Events after the fold: %d events, %v; want the message back", len(evs), err)
	}
}

// Appending a 20 MB message, or a message with a 20 MB text pasted and a
// 20 MB image attached, encodes them into the log as it writes them: the
// store allocates a small fraction of their size, not a line of it.
// (Not parallel: it measures the process's allocations.)
func TestBigMessageAppendDoesNotCopyIt(t *testing.T) {
	big := bigText(roundTripSize())
	image := []byte(big)
	sc := newScene(t, WithFoldThreshold(256<<20))
	id := sc.create(t, ports.NewConversation{})
	sc.append(t, sc.loc, id, sc.ev.TurnStart(sc.root))
	withAttachments := sc.ev.ChatRequest("what is wrong here?")
	withAttachments.Attachments = []conversation.Attachment{
		{Source: "stdin", MediaType: "text/plain", Content: big, Size: int64(len(big))},
		{Source: "shot.png", MediaType: "image/png", Data: image, Size: int64(len(image))},
	}
	for _, e := range []conversation.Event{sc.ev.ChatRequest(big), withAttachments} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sc.append(t, sc.loc, id, e)
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(big))/8 {
			t.Errorf("appending %s allocated %d bytes, want under an eighth of the %d-byte text", e.ID, n, len(big))
		}
	}
	if fi, err := os.Stat(filepath.Join(sc.siloConv(t, id), logFile)); err != nil || fi.Size() < int64(3*len(big)) {
		t.Fatalf("events.log after the appends: %v, %v", fi, err)
	}
	evs, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil || len(evs) != 3 {
		t.Fatalf("Events: %d events, %v; want 3", len(evs), err)
	}
	if got := evs[2].Attachments; len(got) != 2 || got[0].Content != big || !bytes.Equal(got[1].Data, image) {
		t.Fatalf("the attachments read back are not those appended")
	}
}
