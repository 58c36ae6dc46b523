package fsstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadSiloEvents reads a conversation directory's events.log and
// events.json as a crash, a merge or a hand edit may leave them: no
// panic, and an error is one line.
func FuzzReadSiloEvents(f *testing.F) {
	ev := `{"type":"chat_request","id":"e1","timestamp":"2026-09-26T09:14:00Z","content":"hi"}`
	f.Add([]byte("["+ev+"]"), []byte(ev+"\n"))
	f.Add([]byte("[]"), []byte(ev+"\n"+`{"type":"chat_resp`))
	f.Add([]byte("<<<<<<< HEAD\n[]\n=======\n"), []byte("\n\n"))
	f.Add([]byte(""), []byte("not json\n"))
	f.Fuzz(func(t *testing.T, eventsJSON, eventsLog []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, eventsFile), eventsJSON, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, logFile), eventsLog, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readSiloEvents(dir); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error on two lines: %q", err)
		}
		if _, err := readProjectionEvents(dir); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error on two lines: %q", err)
		}
	})
}
