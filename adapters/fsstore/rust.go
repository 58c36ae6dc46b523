package fsstore

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

// The Rust jp's layout, which jp reads and, in a workspace the Rust jp
// uses, writes (docs/storage.md, "Coming from the Rust jp"):
//
//	.jp/.id                                  header line, then the ID
//	.jp/conversations/<id>-<slug>/           a conversation (slug of its title)
//	.jp/conversations/.archive/<id>-<slug>/  an archived conversation
//	  metadata.json, events.json, base_config.json
const (
	archiveDir     = ".archive"
	baseConfigFile = "base_config.json"
)

// convID returns the conversation a directory name stands for: "<id>"
// (jp's naming) or "<id>-<slug>" (the Rust jp's).
func convID(name string) (conversation.ID, bool) {
	digits, slug, dashed := strings.Cut(name, "-")
	if !isConvName(digits) || (dashed && slug == "") {
		return "", false
	}
	return conversation.ID(digits), true
}

// rustDirName is the directory name the Rust jp gives a conversation: the
// ID, then "-" and its title (at most 60 characters, each one that is not
// a letter or digit made "-", lower case), cut at a dash when the title was
// longer.
func rustDirName(id conversation.ID, title string) string {
	var b strings.Builder
	n := 0
	for _, r := range strings.TrimSpace(title) {
		if n == 60 {
			break
		}
		n++
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	slug := strings.ToLower(strings.TrimRight(b.String(), "-"))
	if slug == "" {
		return string(id)
	}
	name := string(id) + "-" + slug
	if len(title) > 60 {
		if i := strings.LastIndexByte(name, '-'); i > len(id) {
			name = name[:i]
		}
	}
	return name
}

// findConvDir returns the path, relative to the conversations directory
// parent, of conversation id's directory, or "" when there is none (a
// directory counts once its metadata.json exists). jp's own "<id>" is
// looked up directly; in a Rust jp workspace, "<id>-<slug>" and the
// archive are searched too.
func findConvDir(parent string, id conversation.ID, f conversation.Format) (string, error) {
	ok, err := exists(filepath.Join(parent, string(id), metadataFile))
	if err != nil || ok {
		if ok {
			return string(id), nil
		}
		return "", err
	}
	if f != conversation.FormatRust {
		return "", nil
	}
	for _, sub := range []string{"", archiveDir} {
		names, err := readDirNames(filepath.Join(parent, sub))
		if err != nil {
			return "", err
		}
		sort.Strings(names)
		for _, n := range names {
			rel := filepath.Join(sub, n)
			if got, ok := convID(n); !ok || got != id || rel == string(id) {
				continue
			}
			if ok, err := exists(filepath.Join(parent, rel, metadataFile)); err != nil || ok {
				return rel, err
			}
		}
	}
	return "", nil
}

// isArchivedRel reports whether a conversation directory (relative to its
// conversations directory) is in the Rust jp's archive.
func isArchivedRel(rel string) bool {
	return strings.HasPrefix(rel, archiveDir+string(filepath.Separator))
}

// formatOf returns the stored form of conversations in the workspace at
// loc: the Rust jp's when its checkout's .jp/.id has the Rust jp's header
// line, or its .jp/conversations holds a directory the Rust jp named
// ("<id>-<slug>", or .archive); jp's otherwise. Without a checkout, the
// silo's conversation directories decide. It is looked up once per
// process.
func (s *Store) formatOf(loc workspace.Location, silo string) conversation.Format {
	key := loc.Root
	if key == "" {
		if silo == "" {
			return conversation.FormatJP
		}
		key = silo
	}
	s.mu.Lock()
	f, ok := s.formats[key]
	s.mu.Unlock()
	if ok {
		return f
	}
	f = detectFormat(loc.Root, silo)
	s.mu.Lock()
	s.formats[key] = f
	s.mu.Unlock()
	return f
}

func detectFormat(root, silo string) conversation.Format {
	convs := filepath.Join(silo, convsDir)
	if root != "" {
		if b, err := os.ReadFile(filepath.Join(root, dotJP, idFile)); err == nil {
			if _, rust, err := workspace.ParseIDFile(string(b)); err == nil && rust {
				return conversation.FormatRust
			}
		}
		convs = filepath.Join(root, dotJP, convsDir)
	}
	names, _ := readDirNames(convs)
	for _, n := range names {
		if _, ok := convID(n); (ok && strings.Contains(n, "-")) || n == archiveDir {
			return conversation.FormatRust
		}
	}
	return conversation.FormatJP
}

// countEvents counts the elements of an events.json without decoding the
// events, for metadata that has no events_count (the Rust jp writes none).
func countEvents(b []byte) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return 0, err
	}
	n := 0
	for dec.More() {
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// completeMeta fills what a metadata.json written by the Rust jp lacks:
// created_at (from the conversation ID, so that a zero time is never
// shown or written), events_count (counted from events.json in dir), and
// archived_at for a conversation in the archive.
func completeMeta(m *conversation.Metadata, id conversation.ID, dir string, archived bool) {
	if m.CreatedAt.IsZero() {
		m.CreatedAt = id.Time()
	}
	if archived && m.ArchivedAt == nil {
		t := m.LastActivatedAt
		if t.IsZero() {
			t = m.CreatedAt
		}
		m.ArchivedAt = &t
	}
	if !m.HasEventsCount {
		// Counted from the file: not one past the default read limit (a
		// listing would hold it whole); the count stays unknown (0).
		path := filepath.Join(dir, eventsFile)
		if fi, err := os.Stat(path); err != nil || fi.Size() > DefaultMaxEventsBytes {
			return
		}
		if b, err := os.ReadFile(path); err == nil {
			if n, err := countEvents(b); err == nil {
				m.EventsCount = n
			}
		}
	}
}
