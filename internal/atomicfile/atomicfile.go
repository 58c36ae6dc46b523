// Package atomicfile is the one way jp replaces a file: the new content
// goes to a temporary file in the same directory, is synced, renamed over
// the target, and the directory is synced. A reader sees the old content
// or the new, never a mix; after the directory sync a power cut keeps the
// new content.
//
// The steps are exposed one layer at a time for callers that group work:
// Stage writes and syncs the temporary file (a multi-file edit stages every
// file before it renames any), Replace is Stage plus the rename (a caller
// that replaces several files of one directory syncs the directory once,
// with SyncDir), and Write is the whole sequence.
//
// A file that exists keeps its permission bits (a user who made a file
// 0600 keeps it 0600; through a symbolic link, the mode of the file it
// points to); Options.Perm is the mode of a new file (the umask applies).
// The rename replaces a symbolic link at the path rather than writing
// through it.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FS is the file system the sequence runs in. OS is the plain one; an
// *os.Root satisfies FS too, so writes confined to a root share the
// sequence.
type FS interface {
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	Open(name string) (*os.File, error)
	Stat(name string) (fs.FileInfo, error)
	Rename(oldname, newname string) error
	Remove(name string) error
}

// OS is the process's file system.
var OS FS = osFS{}

type osFS struct{}

func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (osFS) Open(name string) (*os.File, error)    { return os.Open(name) }
func (osFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }
func (osFS) Rename(oldname, newname string) error  { return os.Rename(oldname, newname) }
func (osFS) Remove(name string) error              { return os.Remove(name) }

// Options says how a file is written. The zero value writes a new file
// 0600 in the process's file system and syncs with fsync.
type Options struct {
	// Perm is the mode of a new file (0600 when zero). A file that exists
	// keeps its own mode.
	Perm fs.FileMode
	// Secret makes Perm the mode of the file even when it exists and had
	// another: a file of tokens is 0600 after every write.
	Secret bool
	// FS is where the file is written (OS when nil).
	FS FS
	// Sync syncs the temporary file before the rename (f.Sync when nil).
	// A store counts its fsyncs, or skips them in tests, through it.
	Sync func(*os.File) error
	// Marker replaces TempMarker in the temporary file's name, so that a
	// writer's leftovers are told from others' (and swept by IsTemp).
	Marker string
}

func (o Options) fsys() FS {
	if o.FS == nil {
		return OS
	}
	return o.FS
}

// TempMarker is in the name of every temporary file: "." + the target's
// base name + TempMarker + random hex. A sweep of debris left by a crash
// looks for it.
const TempMarker = ".tmp-"

// Write replaces path with data atomically and syncs the directory.
func Write(path string, data []byte, o Options) error {
	return WriteFunc(path, o, writeBytes(data))
}

// WriteFunc is Write with the content written by fill.
func WriteFunc(path string, o Options, fill func(*os.File) error) error {
	if err := ReplaceFunc(path, o, fill); err != nil {
		return err
	}
	return SyncDir(o.fsys(), filepath.Dir(path))
}

// Replace is Write without the sync of the directory: the caller replaces
// several files of one directory and then calls SyncDir once. Each file is
// still replaced atomically, its data synced before the rename; until the
// directory is synced a power cut may leave the old file (never a mix).
func Replace(path string, data []byte, o Options) error {
	return ReplaceFunc(path, o, writeBytes(data))
}

// ReplaceFunc is Replace with the content written by fill.
func ReplaceFunc(path string, o Options, fill func(*os.File) error) error {
	tmp, err := StageFunc(path, o, fill)
	if err != nil {
		return err
	}
	if err := o.fsys().Rename(tmp, path); err != nil {
		_ = o.fsys().Remove(tmp)
		return err
	}
	return nil
}

// Stage writes data to a new temporary file beside path, with path's mode
// (or o.Perm for a new file), syncs and closes it, and returns its name.
// The caller renames it over path (or removes it).
func Stage(path string, data []byte, o Options) (string, error) {
	return StageFunc(path, o, writeBytes(data))
}

// StageFunc is Stage with the content written by fill.
func StageFunc(path string, o Options, fill func(*os.File) error) (_ string, err error) {
	fsys := o.fsys()
	perm := o.Perm
	if perm == 0 {
		perm = 0o600
	}
	keep := false
	if o.Secret {
		keep = true // chmod to exactly Perm below, whatever the umask
	} else if fi, err := fsys.Stat(path); err == nil && fi.Mode().IsRegular() {
		perm, keep = fi.Mode().Perm(), true
	}
	f, tmp, err := createTemp(fsys, path, o.marker(), perm)
	if err != nil {
		return "", err
	}
	// tmp is not the named result: the deferred clean-up sees the name
	// even when a return clears the result.
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = fsys.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return "", err
	}
	if keep {
		// The umask may have narrowed the new file's mode: the file keeps
		// exactly the mode it had (a secret gets exactly Perm).
		if err = f.Chmod(perm); err != nil {
			return "", err
		}
	}
	sync := o.Sync
	if sync == nil {
		sync = (*os.File).Sync
	}
	if err = sync(f); err != nil {
		return "", fmt.Errorf("sync: %w", err)
	}
	if err = f.Close(); err != nil {
		return "", err
	}
	return tmp, nil
}

// createTemp creates a new, exclusive temporary file beside path.
func createTemp(fsys FS, path, marker string, perm fs.FileMode) (*os.File, string, error) {
	prefix := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+marker)
	for range 10 {
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		tmp := prefix + hex.EncodeToString(rnd[:])
		f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, tmp, err
	}
	return nil, "", fmt.Errorf("create a temporary file beside %s: too many collisions", path)
}

// SyncDir makes the entries of dir (renames, creations) durable.
func SyncDir(fsys FS, dir string) error {
	if fsys == nil {
		fsys = OS
	}
	d, err := fsys.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeBytes(data []byte) func(*os.File) error {
	return func(f *os.File) error {
		_, err := f.Write(data)
		return err
	}
}

func (o Options) marker() string {
	if o.Marker == "" {
		return TempMarker
	}
	return o.Marker
}

// IsTemp reports whether name (a base name) is a temporary file this
// package names with marker (TempMarker when empty): "." + a base name +
// marker + 12 hex digits.
func IsTemp(name, marker string) bool {
	if marker == "" {
		marker = TempMarker
	}
	i := strings.LastIndex(name, marker)
	if i < 2 || name[0] != '.' {
		return false
	}
	rnd := name[i+len(marker):]
	if len(rnd) != 12 {
		return false
	}
	for _, c := range rnd {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Sweep removes from dir the temporary files (IsTemp names, regular
// files) unchanged for longer than age: a writer in flight keeps its file
// changing (and takes far less), so what is that old is debris of a
// process killed mid-write. A write calls it for its own directory, so
// the debris goes at the next write there and costs nothing otherwise.
// Errors are ignored: a sweep is housekeeping.
func Sweep(dir string, age time.Duration) { SweepIn(osDirs{}, dir, "", age) }

// Dirs is what SweepIn needs of a file system: os (Sweep) or an os.Root,
// which keeps the sweep inside it.
type Dirs interface {
	Open(name string) (*os.File, error)
	Remove(name string) error
}

type osDirs struct{}

func (osDirs) Open(name string) (*os.File, error) { return os.Open(name) }
func (osDirs) Remove(name string) error           { return os.Remove(name) }

// SweepIn is Sweep in fsys, for the temporary files named with marker
// (TempMarker when empty).
func SweepIn(fsys Dirs, dir, marker string, age time.Duration) {
	d, err := fsys.Open(dir)
	if err != nil {
		return
	}
	entries, _ := d.ReadDir(-1)
	_ = d.Close()
	for _, e := range entries {
		if !e.Type().IsRegular() || !IsTemp(e.Name(), marker) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > age {
			_ = fsys.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// StaleAge is the age from which Sweep's callers take a temporary file
// for debris.
const StaleAge = time.Minute
