// Package history keeps the messages the user sent, across conversations,
// in one file of the user's data directory (<data>/history.jsonl), for the
// session composer's Up key (docs/session.md).
//
// The file is JSON lines, oldest first, one {"text": ..., "at": ...}
// object a line. It is written whole, atomically (a temporary file and a
// rename), mode 0600, and bounded: the newest Max messages are kept, and a
// message longer than MaxBytes is not recorded. Fields another version
// wrote are kept as they were. What the file holds is what the user typed,
// so nothing here logs it.
package history

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// Defaults of File.
const (
	DefaultMax      = 500
	DefaultMaxBytes = 16 << 10
)

// File is the ports.MessageHistory kept in one file. Its zero Path keeps
// nothing (no data directory).
type File struct {
	Path     string
	Max      int // messages kept; DefaultMax when 0
	MaxBytes int // longest message recorded; DefaultMaxBytes when 0
	Now      func() time.Time
	mu       sync.Mutex
}

var _ ports.MessageHistory = (*File)(nil)

// New returns the history file of the data directory dataDir ("" keeps
// nothing).
func New(dataDir string) *File {
	if dataDir == "" {
		return &File{}
	}
	return &File{Path: filepath.Join(dataDir, "history.jsonl")}
}

// entry is one line: the text, and the line as read (its unknown fields
// are kept by writing it back unchanged).
type entry struct {
	text string
	raw  []byte
}

// Recent returns the kept messages, oldest first. A missing file is an
// empty history; a line that is not an object with a text is skipped.
func (f *File) Recent(ctx context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	es, err := f.read()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.text
	}
	return out, nil
}

// Add records text as the newest message. A blank text, or one equal to
// the newest, is not recorded again; one longer than MaxBytes is not
// recorded at all.
func (f *File) Add(ctx context.Context, text string) error {
	if f.Path == "" || len(bytes.TrimSpace([]byte(text))) == 0 || len(text) > cmpOr(f.MaxBytes, DefaultMaxBytes) {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	es, err := f.read()
	if err != nil {
		return err
	}
	if n := len(es); n > 0 && es[n-1].text == text {
		return nil
	}
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	raw, err := json.Marshal(struct {
		Text string    `json:"text"`
		At   time.Time `json:"at"`
	}{text, now().UTC()})
	if err != nil {
		return err
	}
	es = append(es, entry{text: text, raw: raw})
	if max := cmpOr(f.Max, DefaultMax); len(es) > max {
		es = es[len(es)-max:]
	}
	var buf bytes.Buffer
	for _, e := range es {
		buf.Write(e.raw)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("message history: %w", err)
	}
	if err := atomicfile.Write(f.Path, buf.Bytes(), atomicfile.Options{Perm: 0o600, Secret: true}); err != nil {
		return fmt.Errorf("message history: %w", err)
	}
	return nil
}

// read parses the file; called with f.mu held.
func (f *File) read() ([]entry, error) {
	if f.Path == "" {
		return nil, nil
	}
	fh, err := os.Open(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("message history: %w", err)
	}
	defer fh.Close()
	var es []entry
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 64<<10), 4*cmpOr(f.MaxBytes, DefaultMaxBytes)+1024)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		var v struct {
			Text *string `json:"text"`
		}
		if len(line) == 0 || json.Unmarshal(line, &v) != nil || v.Text == nil {
			continue
		}
		es = append(es, entry{text: *v.Text, raw: bytes.Clone(line)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("message history %s: %w", f.Path, err)
	}
	return es, nil
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
