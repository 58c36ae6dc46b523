package fsstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jpcli/jp/ports"
)

// Confinement. Everything jp keeps lives under two trusted bases: the data
// directory and a checkout root (both may themselves be reached through
// symbolic links: the user chose them). Below a base, jp expects only its
// own directories and regular files, and never follows a symbolic link: a
// link committed into a checkout's .jp/conversations (or planted in the
// data directory) could otherwise make jp read or rewrite another
// workspace's conversation. Before jp reads or writes under a base it walks
// the path one component at a time through an os.Root opened on the base,
// with Lstat (which does not follow a final link), and refuses the first
// link it meets with a *ports.LinkError. Files are replaced by rename,
// which replaces a link rather than writing through it, and listings learn
// entry types from the directory itself, so a link that appears after the
// walk is still not written through.

// managedFiles are the files jp reads or writes in a conversation
// directory.
var managedFiles = []string{metadataFile, eventsFile, logFile, localMetaFile, draftFile, partialFile}

// confine fails with a *ports.LinkError when a component of rel under base
// is a symbolic link (or, for a component that is not last, not a
// directory). A missing component ends the walk: what is not there yet is
// created by jp, as a directory or by rename.
func confine(base, rel string) error {
	if rel == "" || rel == "." {
		return nil
	}
	r, err := os.OpenRoot(base)
	if isNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", base, err)
	}
	defer func() { _ = r.Close() }()
	cur := ""
	for part := range strings.SplitSeq(filepath.Clean(rel), string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := r.Lstat(cur)
		if isNotExist(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("check %s: %w", filepath.Join(base, cur), err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &ports.LinkError{Path: filepath.Join(base, cur)}
		}
		if cur != filepath.Clean(rel) && !fi.IsDir() {
			return fmt.Errorf("%s is not a directory: move it aside so that jp can keep its files there", filepath.Join(base, cur))
		}
	}
	return nil
}

// confineUnder is confine for a path built from base: path must lie under
// base (both are paths jp joined itself, never user input).
func confineUnder(base, path string) error {
	rel, err := filepath.Rel(base, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is not under %s", path, base)
	}
	return confine(base, rel)
}

// confineFiles refuses a symbolic link among the managed files of the
// conversation directory dir (whose own path was confined already).
func confineFiles(dir string) error {
	for _, n := range managedFiles {
		p := filepath.Join(dir, n)
		fi, err := os.Lstat(p)
		if isNotExist(err) || errors.Is(err, fs.ErrInvalid) {
			continue
		}
		if err != nil {
			return fmt.Errorf("check %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &ports.LinkError{Path: p}
		}
	}
	return nil
}

// confineConv checks one conversation directory under base and its
// managed files.
func confineConv(base, dir string) error {
	if err := confineUnder(base, dir); err != nil {
		return err
	}
	return confineFiles(dir)
}

// listEntries lists a directory like readDirNames, refusing an entry that
// is a symbolic link (names starting with a dot are jp's temp files and
// tombstones, never read as entries). The types come from the directory listing itself: no extra system
// call per entry.
func listEntries(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if isNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("read directory %s: %w", dir, err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if e.Type()&fs.ModeSymlink != 0 && !strings.HasPrefix(n, ".") {
			return nil, &ports.LinkError{Path: filepath.Join(dir, n)}
		}
		names = append(names, n)
	}
	return names, nil
}
