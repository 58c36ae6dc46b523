package fsstore

import (
	"github.com/jpcli/jp/domain/conversation"

	"github.com/jpcli/jp/adapters/eventcodec"

	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// writeFile replaces path with data atomically: a temp file in the same
// directory, fsync, rename over path, fsync of the directory. A reader sees
// the old content or the new, never a mix. A file that exists keeps its
// permission bits (a user who made a file 0600 keeps it 0600); perm is for
// a new file. The rename replaces a symbolic link at path rather than
// writing through it.
func (s *Store) writeFile(path string, data []byte, perm fs.FileMode) error {
	return s.writeFileFunc(path, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// writeFileFunc is writeFile with the content written by fill.
func (s *Store) writeFileFunc(path string, perm fs.FileMode, fill func(*os.File) error) error {
	if err := s.replaceFile(path, perm, fill); err != nil {
		return err
	}
	return s.syncDir(filepath.Dir(path))
}

// replaceFile is writeFileFunc without the fsync of the directory: the
// caller replaces several files of one directory and then syncs it once.
// Each file is still replaced atomically, its data synced before the
// rename; until the directory is synced, a power cut may leave the old
// file in place (never a mix).
func (s *Store) replaceFile(path string, perm fs.FileMode, fill func(*os.File) error) error {
	if err := atomicfile.ReplaceFunc(path, s.fileOptions(perm), fill); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// fileOptions are the atomicfile options of a file the store writes: its
// fsyncs counted (or skipped when the store was made without fsync).
func (s *Store) fileOptions(perm fs.FileMode) atomicfile.Options {
	return atomicfile.Options{Perm: perm, Sync: s.syncFile}
}

// syncFile fsyncs f (unless the store was made without fsync).
func (s *Store) syncFile(f *os.File) error {
	if s.beforeSync != nil {
		s.beforeSync()
	}
	if !s.fsync {
		return nil
	}
	s.syncs.Add(1)
	return f.Sync()
}

// Syncs is the number of fsyncs (of files and of directories) the store
// has made: the benchmarks report it per turn.
func (s *Store) Syncs() int64 { return s.syncs.Load() }

// syncDir makes a directory's entries (renames, creations) durable.
func (s *Store) syncDir(dir string) error {
	if s.beforeSync != nil {
		s.beforeSync()
	}
	if !s.fsync {
		return nil
	}
	s.syncs.Add(1)
	if err := atomicfile.SyncDir(atomicfile.OS, dir); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// writeJSON writes v as indented JSON, atomically.
func (s *Store) writeJSON(path string, v any, perm fs.FileMode) error {
	if err := s.replaceJSON(path, v, perm); err != nil {
		return err
	}
	return s.syncDir(filepath.Dir(path))
}

// replaceJSON is writeJSON without the fsync of the directory (see
// replaceFile).
func (s *Store) replaceJSON(path string, v any, perm fs.FileMode) error {
	b, err := json.MarshalIndent(storedForm(v), "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: encode: %w", path, err)
	}
	b = append(b, '\n')
	return s.replaceFile(path, perm, func(f *os.File) error {
		_, err := f.Write(b)
		return err
	})
}

// readJSON decodes path into v. A missing file gives an error wrapping
// fs.ErrNotExist; an unparsable one a *ports.CorruptError.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return decodeJSON(path, b, v)
}

// decodeJSON decodes b, read from path, into v.
func decodeJSON(path string, b []byte, v any) error {
	if err := json.Unmarshal(b, storedForm(v)); err != nil {
		return &ports.CorruptError{Path: path, Err: err}
	}
	return nil
}

// storedForm is v as encoding/json is to write or read it: a conversation's
// metadata or an event in its stored form (adapters/eventcodec), anything
// else as it is.
func storedForm(v any) any {
	switch m := v.(type) {
	case conversation.Metadata:
		return eventcodec.MetadataJSON(m)
	case *conversation.Metadata:
		return (*eventcodec.MetadataJSON)(m)
	case conversation.Event:
		return eventcodec.JSON(m)
	case *conversation.Event:
		return (*eventcodec.JSON)(m)
	case conversation.LocalMetadata:
		return eventcodec.LocalJSON(m)
	case *conversation.LocalMetadata:
		return (*eventcodec.LocalJSON)(m)
	}
	return v
}

// exists reports whether path exists.
func exists(path string) (bool, error) {
	_, err := os.Lstat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// isNotExist reports whether err says a file is missing.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// staleTempAge is how old a temp file must be before sweepTemps removes
// it: far longer than any write takes, so that it is debris of a crash and
// not another writer's file in flight.
const staleTempAge = 10 * time.Minute

// sweepTemps removes temp files that writeFile left in dir when a process
// died mid-write, so that they are not committed with a projection.
func sweepTemps(dir string) {
	names, err := readDirNames(dir)
	if err != nil {
		return
	}
	for _, n := range names {
		if !strings.HasPrefix(n, ".") || !strings.Contains(n, atomicfile.TempMarker) {
			continue
		}
		p := filepath.Join(dir, n)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleTempAge {
			_ = os.Remove(p)
		}
	}
}
