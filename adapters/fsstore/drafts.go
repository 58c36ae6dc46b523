package fsstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

func draftNotFound(id conversation.ID) error {
	return &ports.NotFoundError{What: "draft of conversation " + string(id)}
}

// DraftPath is the path of the conversation's QUERY_MESSAGE.md in the silo
// (where it will be once the silo exists). It is empty for invalid IDs.
func (s *Store) DraftPath(loc workspace.Location, id conversation.ID) string {
	if conversation.CheckAddress(loc, id) != nil {
		return ""
	}
	silo, err := s.siloDir(loc.ID)
	if err != nil {
		return ""
	}
	if silo == "" {
		silo = filepath.Join(s.dataDir, workspaceDir, workspace.SiloName(slugFor(loc.Root), loc.ID))
	}
	convs := filepath.Join(silo, convsDir)
	if name, err := findConvDir(convs, id, s.formatOf(loc, silo)); err == nil && name != "" {
		return filepath.Join(convs, name, draftFile)
	}
	return filepath.Join(convs, string(id), draftFile)
}

// ReadDraft returns the draft and its revision. A missing draft is a
// *ports.NotFoundError.
func (s *Store) ReadDraft(ctx context.Context, loc workspace.Location, id conversation.ID) (ports.Draft, error) {
	p, err := s.find(ctx, loc, id, "read draft")
	if err != nil {
		return ports.Draft{}, err
	}
	if !p.inSilo {
		return ports.Draft{}, draftNotFound(id)
	}
	d, err := readDraftFile(filepath.Join(p.siloConv, draftFile))
	if isNotExist(err) {
		return ports.Draft{}, draftNotFound(id)
	}
	return d, err
}

// readDraftFile reads a draft and derives its revision from what was read
// and the file's identity (inode and modification time): an atomic write
// always makes a new inode, so every write changes the revision.
func readDraftFile(path string) (ports.Draft, error) {
	f, err := os.Open(path)
	if err != nil {
		return ports.Draft{}, err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return ports.Draft{}, fmt.Errorf("read draft %s: %w", path, err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return ports.Draft{}, fmt.Errorf("read draft %s: %w", path, err)
	}
	return ports.Draft{Text: string(b), Revision: revision(b, fi)}, nil
}

func revision(content []byte, fi fs.FileInfo) string {
	h := sha256.New()
	h.Write(content)
	var b [24]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(fi.ModTime().UnixNano()))
	binary.LittleEndian.PutUint64(b[8:], fileID(fi))
	binary.LittleEndian.PutUint64(b[16:], uint64(fi.Size()))
	h.Write(b[:])
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// WriteDraft replaces the draft atomically and returns its new revision.
// With ifRevision set, the draft must still have that revision, else the
// file is left untouched and the error wraps ports.ErrRevisionMismatch. A
// projection-only conversation is imported first.
func (s *Store) WriteDraft(ctx context.Context, loc workspace.Location, id conversation.ID, text, ifRevision string) (string, error) {
	p, unlock, err := s.begin(ctx, loc, id, "write draft")
	if err != nil {
		return "", err
	}
	defer unlock()
	if ifRevision != "" {
		cur := ports.Draft{Revision: "(none)"}
		if p.inSilo {
			cur, err = readDraftFile(filepath.Join(p.siloConv, draftFile))
			if isNotExist(err) {
				cur, err = ports.Draft{Revision: "(none)"}, nil
			}
			if err != nil {
				return "", err
			}
		}
		if cur.Revision != ifRevision {
			return "", fmt.Errorf("write draft of conversation %s: it has revision %s, not %s: %w", id, cur.Revision, ifRevision, ports.ErrRevisionMismatch)
		}
	}
	if !p.inSilo {
		if err := s.importConversation(loc, id, &p); err != nil {
			return "", err
		}
	}
	path := filepath.Join(p.siloConv, draftFile)
	if err := s.writeFile(path, []byte(text), 0o600); err != nil {
		return "", fmt.Errorf("write draft of conversation %s: %w", id, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("write draft of conversation %s: %w", id, err)
	}
	return revision([]byte(text), fi), nil
}

// DeleteDraft removes the draft; a missing draft is not an error. Only a
// regular file is a draft jp wrote: anything else at its path (a
// directory, a link) was put there by someone else and is left alone, as
// a missing draft.
func (s *Store) DeleteDraft(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	p, unlock, err := s.begin(ctx, loc, id, "delete draft")
	if err != nil {
		return err
	}
	defer unlock()
	if !p.inSilo {
		return nil
	}
	path := filepath.Join(p.siloConv, draftFile)
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil
	}
	if err := os.Remove(path); err != nil {
		if isNotExist(err) {
			return nil
		}
		return fmt.Errorf("delete draft of conversation %s: %w", id, err)
	}
	return s.syncDir(p.siloConv)
}
