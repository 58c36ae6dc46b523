package fsstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/filesnap"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

var _ ports.FileSnapshots = (*Store)(nil)

// File snapshots live in the silo's conversation directory, never in the
// checkout: snapshots/index.json (the records, rewritten atomically; keys
// another version wrote are kept) and snapshots/<sha256> (each content
// kept, once however many records name it).
const (
	snapsDir  = "snapshots"
	snapIndex = "index.json"
	// maxSnapFile bounds a file read into a snapshot: the built-in write
	// tools change no bigger file.
	maxSnapFile = 8 << 20
)

// snapKnown are the keys of a record this version writes.
var snapKnown = []string{"turn", "seq", "path", "tool", "at", "before", "after", "wrote"}

// snapFile is index.json as read: the records, and what another version
// wrote beside them.
type snapFile struct {
	index  filesnap.Index
	extra  map[string]json.RawMessage               // unknown top-level keys
	recExt map[[2]string]map[string]json.RawMessage // unknown keys of a record, by turn and path
}

func (s *Store) snapDir(ctx context.Context, loc workspace.Location, id conversation.ID, op string) (string, func(), error) {
	p, unlock, err := s.begin(ctx, loc, id, op)
	if err != nil {
		return "", nil, err
	}
	if !p.inSilo || p.siloConv == "" {
		unlock()
		return "", nil, fmt.Errorf("%s: conversation %s has no user-local copy: %w", op, id, ports.ErrNotFound)
	}
	return filepath.Join(p.siloConv, snapsDir), unlock, nil
}

func readSnapFile(dir string) (snapFile, error) {
	f := snapFile{extra: map[string]json.RawMessage{}, recExt: map[[2]string]map[string]json.RawMessage{}}
	data, err := os.ReadFile(filepath.Join(dir, snapIndex))
	if isNotExist(err) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("read file snapshots: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return f, fmt.Errorf("read file snapshots %s: %v: %w", filepath.Join(dir, snapIndex), err, ports.ErrCorrupt)
	}
	var raws []json.RawMessage
	if r, ok := top["records"]; ok {
		if err := json.Unmarshal(r, &raws); err != nil {
			return f, fmt.Errorf("read file snapshots %s: records: %v: %w", filepath.Join(dir, snapIndex), err, ports.ErrCorrupt)
		}
	}
	if d, ok := top["dropped"]; ok {
		if err := json.Unmarshal(d, &f.index.Dropped); err != nil {
			return f, fmt.Errorf("read file snapshots %s: dropped: %v: %w", filepath.Join(dir, snapIndex), err, ports.ErrCorrupt)
		}
	}
	for k, v := range top {
		if k != "records" && k != "dropped" {
			f.extra[k] = v
		}
	}
	for _, raw := range raws {
		var sr snapRecord
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &sr); err != nil {
			return f, fmt.Errorf("read file snapshots %s: %v: %w", filepath.Join(dir, snapIndex), err, ports.ErrCorrupt)
		}
		r := sr.record()
		_ = json.Unmarshal(raw, &m)
		for _, k := range snapKnown {
			delete(m, k)
		}
		if len(m) > 0 {
			f.recExt[[2]string{r.Turn, r.Path}] = m
		}
		f.index.Records = append(f.index.Records, r)
	}
	return f, nil
}

// snapRecord is a filesnap.Record as index.json stores it.
type snapRecord struct {
	Turn   string    `json:"turn"` // the turn_start event's ID
	Seq    int       `json:"seq"`  // order of first capture in the conversation
	Path   string    `json:"path"` // relative to the checkout, slash-separated
	Tool   string    `json:"tool"` // the tool that first changed it in the turn
	At     time.Time `json:"at"`
	Before snapState `json:"before"`
	After  snapState `json:"after"`
	Wrote  bool      `json:"wrote"`
}

// snapState is a filesnap.State as index.json stores it. Its fields are
// filesnap.State's, so the two convert into each other.
type snapState struct {
	Exists bool   `json:"exists"`
	Hash   string `json:"sha256,omitempty"`
	Size   int64  `json:"size,omitempty"`
}

func storedSnapRecord(r filesnap.Record) snapRecord {
	return snapRecord{Turn: r.Turn, Seq: r.Seq, Path: r.Path, Tool: r.Tool, At: r.At,
		Before: snapState(r.Before), After: snapState(r.After), Wrote: r.Wrote}
}

func (sr snapRecord) record() filesnap.Record {
	return filesnap.Record{Turn: sr.Turn, Seq: sr.Seq, Path: sr.Path, Tool: sr.Tool, At: sr.At,
		Before: filesnap.State(sr.Before), After: filesnap.State(sr.After), Wrote: sr.Wrote}
}

func (s *Store) writeSnapFile(dir string, f snapFile) error {
	top := map[string]any{}
	for k, v := range f.extra {
		top[k] = v
	}
	recs := make([]any, 0, len(f.index.Records))
	for _, r := range f.index.Records {
		ext := f.recExt[[2]string{r.Turn, r.Path}]
		if len(ext) == 0 {
			recs = append(recs, storedSnapRecord(r))
			continue
		}
		b, err := json.Marshal(storedSnapRecord(r))
		if err != nil {
			return err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		for k, v := range ext {
			if _, ok := m[k]; !ok {
				m[k] = v
			}
		}
		recs = append(recs, m)
	}
	top["records"] = recs
	if len(f.index.Dropped) > 0 {
		top["dropped"] = f.index.Dropped
	}
	data, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return fmt.Errorf("write file snapshots: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write file snapshots: %w", err)
	}
	return s.writeFile(filepath.Join(dir, snapIndex), append(data, '\n'), 0o600)
}

// checkRel refuses a record's path that is not a plain relative path.
func checkRel(rel string) error {
	if rel == "" || path.IsAbs(rel) || strings.Contains(rel, "\\") || path.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("file snapshot path %q is not inside the checkout", rel)
	}
	return nil
}

// readState reads rel in root: its state and content (nil when absent).
func readState(root *os.Root, rel string) (filesnap.State, []byte, error) {
	if err := checkRel(rel); err != nil {
		return filesnap.State{}, nil, err
	}
	fi, err := root.Stat(rel)
	if isNotExist(err) {
		return filesnap.State{}, nil, nil
	}
	if err != nil {
		return filesnap.State{}, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return filesnap.State{}, nil, fmt.Errorf("%s is not a regular file", rel)
	}
	if fi.Size() > maxSnapFile {
		return filesnap.State{}, nil, fmt.Errorf("%s is %d bytes, more than a file snapshot keeps (%d)", rel, fi.Size(), maxSnapFile)
	}
	fh, err := root.Open(rel)
	if err != nil {
		return filesnap.State{}, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxSnapFile+1))
	if err != nil {
		return filesnap.State{}, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if b == nil {
		b = []byte{}
	}
	sum := sha256.Sum256(b)
	return filesnap.State{Exists: true, Hash: hex.EncodeToString(sum[:]), Size: int64(len(b))}, b, nil
}

func openCheckout(loc workspace.Location) (*os.Root, error) {
	if loc.Root == "" {
		return nil, errors.New("file snapshots need a checkout")
	}
	return os.OpenRoot(loc.Root)
}

// CaptureFiles implements ports.FileSnapshots.
func (s *Store) CaptureFiles(ctx context.Context, loc workspace.Location, id conversation.ID, turn, tool string, files []string, maxBytes int64) ([]string, error) {
	dir, root, done, err := s.openSnaps(ctx, loc, id, "capture file snapshots")
	if err != nil {
		return nil, err
	}
	defer done()
	f, err := readSnapFile(dir)
	if err != nil {
		return nil, err
	}
	changed := false
	for _, rel := range files {
		if f.index.Has(turn, rel) {
			continue
		}
		st, content, err := readState(root, rel)
		if err != nil {
			return nil, fmt.Errorf("capture file snapshot: %w", err)
		}
		if st.Exists {
			if err := s.keepBlob(dir, st.Hash, content); err != nil {
				return nil, err
			}
		}
		f.index.Add(turn, rel, tool, s.clock.Now().UTC(), st)
		changed = true
	}
	if !changed {
		return nil, nil
	}
	dropped := f.index.Prune(maxBytes, turn)
	if err := s.writeSnapFile(dir, f); err != nil {
		return nil, err
	}
	if len(dropped) > 0 {
		s.sweepBlobs(dir, f.index.Hashes())
	}
	return dropped, nil
}

// keepBlob writes content under its hash unless it is kept already.
func (s *Store) keepBlob(dir, hash string, content []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keep file snapshot: %w", err)
	}
	p := filepath.Join(dir, hash)
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	return s.writeFile(p, content, 0o600)
}

// sweepBlobs removes the contents no record keeps (best effort).
func (s *Store) sweepBlobs(dir string, keep map[string]bool) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if len(n) == 64 && !keep[n] && e.Type().IsRegular() {
			_ = os.Remove(filepath.Join(dir, n))
		}
	}
}

// WroteFiles implements ports.FileSnapshots.
func (s *Store) WroteFiles(ctx context.Context, loc workspace.Location, id conversation.ID, turn string, files []string) error {
	dir, root, done, err := s.openSnaps(ctx, loc, id, "record file snapshots")
	if err != nil {
		return err
	}
	defer done()
	f, err := readSnapFile(dir)
	if err != nil {
		return err
	}
	changed := false
	for _, rel := range files {
		if !f.index.Has(turn, rel) {
			continue
		}
		st, _, err := readState(root, rel)
		if err != nil {
			return fmt.Errorf("record file snapshot: %w", err)
		}
		f.index.Wrote(turn, rel, st)
		changed = true
	}
	if !changed {
		return nil
	}
	return s.writeSnapFile(dir, f)
}

// SnapshotIndex implements ports.FileSnapshots.
func (s *Store) SnapshotIndex(ctx context.Context, loc workspace.Location, id conversation.ID) (filesnap.Index, error) {
	p, unlock, err := s.begin(ctx, loc, id, "read file snapshots")
	if err != nil {
		return filesnap.Index{}, err
	}
	defer unlock()
	if !p.inSilo || p.siloConv == "" {
		return filesnap.Index{}, nil
	}
	f, err := readSnapFile(filepath.Join(p.siloConv, snapsDir))
	return f.index, err
}

// openSnaps locks the conversation's snapshot directory and opens the
// checkout the snapshots are of; done closes both, in that order's reverse.
func (s *Store) openSnaps(ctx context.Context, loc workspace.Location, id conversation.ID, what string) (dir string, root *os.Root, done func(), err error) {
	dir, unlock, err := s.snapDir(ctx, loc, id, what)
	if err != nil {
		return "", nil, nil, err
	}
	root, err = openCheckout(loc)
	if err != nil {
		unlock()
		return "", nil, nil, err
	}
	return dir, root, func() { root.Close(); unlock() }, nil
}

// FileStates implements ports.FileSnapshots.
func (s *Store) FileStates(_ context.Context, loc workspace.Location, files []string) (map[string]filesnap.State, error) {
	root, err := openCheckout(loc)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	out := make(map[string]filesnap.State, len(files))
	for _, rel := range files {
		st, _, err := readState(root, rel)
		if err != nil {
			return nil, err
		}
		out[rel] = st
	}
	return out, nil
}

// RestoreFiles implements ports.FileSnapshots.
func (s *Store) RestoreFiles(ctx context.Context, loc workspace.Location, id conversation.ID, restores []filesnap.Restore, undone map[string]bool) error {
	dir, root, done, err := s.openSnaps(ctx, loc, id, "rewind files")
	if err != nil {
		return err
	}
	defer done()
	// Every content is read and checked before any file is written.
	contents := make([][]byte, len(restores))
	for i, r := range restores {
		if err := checkRel(r.Path); err != nil {
			return err
		}
		if !r.To.Exists {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, r.To.Hash))
		if err != nil {
			return fmt.Errorf("the snapshot of %s is no longer kept (%v); nothing was restored", r.Path, err)
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != r.To.Hash {
			return fmt.Errorf("the snapshot of %s is damaged (its content does not match its hash); nothing was restored", r.Path)
		}
		contents[i] = b
	}
	for i, r := range restores {
		if r.Noop() {
			continue
		}
		if !r.To.Exists {
			if err := root.Remove(r.Path); err != nil && !isNotExist(err) {
				return fmt.Errorf("rewind %s: %w", r.Path, err)
			}
			continue
		}
		if d := path.Dir(r.Path); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("rewind %s: %w", r.Path, err)
			}
		}
		if err := atomicfile.Write(r.Path, contents[i], atomicfile.Options{Perm: 0o644, FS: root, Sync: s.syncFile}); err != nil {
			return fmt.Errorf("rewind %s: %w", r.Path, err)
		}
	}
	f, err := readSnapFile(dir)
	if err != nil {
		return err
	}
	f.index.Records = slices.DeleteFunc(f.index.Records, func(r filesnap.Record) bool { return undone[r.Turn] })
	if err := s.writeSnapFile(dir, f); err != nil {
		return err
	}
	s.sweepBlobs(dir, f.index.Hashes())
	return nil
}
