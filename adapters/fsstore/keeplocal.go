package fsstore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// Content from outside the checkout (conversation.Attachment.Local: a
// file outside it, a command's output, a URL's body) never reaches the
// checkout copy, the one meant to be committed. The stored event holds
// the attachment's reference alone (source, media type, size, SHA-256,
// "local": true; the Rust jp does not read attachments at all), in the
// user-local events.json as in the checkout copy, which stays a byte copy
// of it. The content is kept next to the user-local copy, in
// <conversation>/attachments/<sha256> (mode 0600), and put back when the
// user-local copy is read. A copy without that file (a clone that has
// the checkout copy only) reads the reference.

// localDir is the directory of a user-local conversation that keeps the
// content of its Local attachments, one file per SHA-256.
const localDir = "attachments"

// keptContent is the content of one Local attachment, to be kept in the
// user-local copy.
type keptContent struct {
	sha  string
	data []byte
}

// keepLocal returns evs with the content of their Local attachments taken
// out (the reference left in its place), and that content. evs is not
// changed: an event with such an attachment is copied.
func keepLocal(evs []conversation.Event) ([]conversation.Event, []keptContent) {
	var kept []keptContent
	var out []conversation.Event
	for i, e := range evs {
		if e.Type != conversation.EventTypeChatRequest || !hasLocalContent(e.Attachments) {
			continue
		}
		if out == nil {
			out = append([]conversation.Event(nil), evs...)
		}
		atts := append([]conversation.Attachment(nil), e.Attachments...)
		for j, a := range atts {
			if !a.Local || a.IsReference() {
				continue
			}
			data := a.Data
			if len(data) == 0 {
				data = []byte(a.Content)
			}
			sum := sha256.Sum256(data)
			a.SHA256, a.Size = hex.EncodeToString(sum[:]), int64(len(data))
			a.Content, a.Data = "", nil
			atts[j] = a
			kept = append(kept, keptContent{sha: a.SHA256, data: data})
		}
		out[i].Attachments = atts
		// A copied event (a fork) is written from its stored form, which
		// holds the reference already; one made by this process has none.
	}
	if out == nil {
		return evs, nil
	}
	return out, kept
}

func hasLocalContent(atts []conversation.Attachment) bool {
	for _, a := range atts {
		if a.Local && !a.IsReference() {
			return true
		}
	}
	return false
}

// writeKept writes kept content into the user-local conversation dir,
// each file atomically; content kept already is not written again.
func (s *Store) writeKept(dir string, kept []keptContent) error {
	if len(kept) == 0 {
		return nil
	}
	kd := filepath.Join(dir, localDir)
	if fi, err := os.Lstat(kd); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &ports.LinkError{Path: kd}
	}
	if err := os.MkdirAll(kd, 0o700); err != nil {
		return fmt.Errorf("keep attachments: %w", err)
	}
	for _, k := range kept {
		p := filepath.Join(kd, k.sha)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(k.data)) {
			continue
		}
		if err := s.writeFile(p, k.data, 0o600); err != nil {
			return fmt.Errorf("keep attachments: %w", err)
		}
	}
	return s.syncDir(dir)
}

// putBack fills in the content of e's Local attachments from the
// user-local conversation dir, where it is there and has the recorded
// digest; the others stay references. e's attachments are not changed in
// place: they may share a buffer.
func putBack(dir string, e conversation.Event) conversation.Event {
	if e.Type != conversation.EventTypeChatRequest {
		return e
	}
	var atts []conversation.Attachment
	checked := false
	for i, a := range e.Attachments {
		if !a.IsReference() || !isDigest(a.SHA256) {
			continue
		}
		if !checked {
			// Never through a link (see confine.go).
			if fi, err := os.Lstat(filepath.Join(dir, localDir)); err != nil || !fi.IsDir() {
				return e
			}
			checked = true
		}
		data, err := readRegular(filepath.Join(dir, localDir, a.SHA256))
		if err != nil {
			continue
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != a.SHA256 {
			continue
		}
		if atts == nil {
			atts = append([]conversation.Attachment(nil), e.Attachments...)
		}
		if strings.HasPrefix(a.MediaType, "image/") {
			atts[i].Data = data
		} else {
			atts[i].Content = string(data)
		}
	}
	if atts != nil {
		e.Attachments = atts
	}
	return e
}

// isDigest reports whether s is a hex SHA-256 (and so a safe file name:
// a checkout copy is not trusted to name one).
func isDigest(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// readRegular reads path when it is a regular file, not a link.
func readRegular(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return os.ReadFile(path)
}
