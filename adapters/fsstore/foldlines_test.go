package fsstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFoldStreamsTheLog: a fold copies the log's lines into events.json
// in pieces (a line longer than the copy buffer included), leaves out
// blank lines and a last line cut by a crash, and gives the array the
// splitter of events.log would give.
func TestFoldStreamsTheLog(t *testing.T) {
	t.Parallel()
	long := `{"type":"chat_request","content":"` + strings.Repeat("x", 200<<10) + `"}`
	log := "{\"a\":1}\n\n   \n" + strings.Repeat(" ", 70<<10) + "\n  {\"b\":2}\r\n" + long + "\n" + `{"cut":"by a cr`
	for _, known := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), logFile)
		if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := completeLines(f, int64(len(log)))
		if err != nil {
			t.Fatal(err)
		}
		if known { // Append's own lines: complete by construction
			r = strings.NewReader(log[:strings.LastIndexByte(log, '\n')+1])
		}
		var out bytes.Buffer
		w := bufio.NewWriterSize(&out, 64<<10)
		_, _ = w.WriteString("[")
		empty := true
		if err := copyLines(w, r, &empty); err != nil {
			t.Fatal(err)
		}
		_, _ = w.WriteString("\n]\n")
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
		lines, partial := splitLines([]byte(log))
		want := "[\n" + string(bytes.Join(lines, []byte(",\n"))) + "\n]\n"
		if !partial || out.String() != want || !json.Valid(out.Bytes()) {
			t.Fatalf("fold wrote %d bytes (valid %v), want the %d lines of the log (%d bytes)", out.Len(), json.Valid(out.Bytes()), len(lines), len(want))
		}
	}
}
