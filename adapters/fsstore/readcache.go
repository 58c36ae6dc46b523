package fsstore

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// readCache is a silo conversation's events as read from its files, with
// the files' identities when they were read.
type readCache struct {
	dir   string
	stamp siloStamp
	se    siloEvents // without the block in flight
}

// siloStamp identifies the state of a silo conversation's events files:
// events.json is only ever replaced (a new file), and events.log only
// appended to or removed.
type siloStamp struct{ json, log os.FileInfo } // nil: the file is missing

func stampSilo(dir string) (siloStamp, error) {
	var st siloStamp
	for _, f := range []struct {
		name string
		fi   *os.FileInfo
	}{{eventsFile, &st.json}, {logFile, &st.log}} {
		fi, err := os.Stat(filepath.Join(dir, f.name))
		if err != nil && !isNotExist(err) {
			return st, err
		}
		*f.fi = fi
	}
	return st, nil
}

func sameFileState(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

func (a siloStamp) same(b siloStamp) bool {
	return sameFileState(a.json, b.json) && sameFileState(a.log, b.log)
}

// readSilo is readSiloEvents through a one-entry cache: a turn reads its
// conversation's history once (for the provider request), and its first
// append, which needs the same events to check the stream, finds them
// here instead of reading and decoding them again, as long as the files
// are as they were read. The events are shared: the caller that read them
// from the files may append to its slice (it has room for a few events,
// so a turn does not copy a long history to add its own); later callers
// get a slice without room, so that an append copies it. Nobody changes
// the events themselves.
func (s *Store) readSilo(dir string) (siloEvents, error) {
	before, serr := stampSilo(dir)
	s.mu.Lock()
	c := s.lastRead
	s.mu.Unlock()
	var se siloEvents
	if serr == nil && c != nil && c.dir == dir && c.stamp.same(before) {
		se = c.se
		se.events = slices.Clip(se.events)
	} else {
		var err error
		if se, err = readSiloBase(dir); err != nil {
			return se, err
		}
		if after, err := stampSilo(dir); serr == nil && err == nil && after.same(before) {
			s.mu.Lock()
			s.lastRead = &readCache{dir: dir, stamp: after, se: se}
			s.mu.Unlock()
		}
	}
	if ev, ok := readPartial(dir, se.events); ok {
		se.events = append(slices.Clip(se.events), ev)
		se.block = true
	}
	return se, nil
}

// dropRead forgets the cached read of dir.
func (s *Store) dropRead(dir string) {
	s.mu.Lock()
	if s.lastRead != nil && s.lastRead.dir == dir {
		s.lastRead = nil
	}
	s.mu.Unlock()
}

// markValid records path, as it is now, as a file known to parse.
func (s *Store) markValid(path string) {
	fi, err := os.Stat(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		delete(s.valid, path)
		return
	}
	s.valid[path] = fi
}

// knownValid reports whether path, as fi describes it, was marked valid
// and is still the same file.
func (s *Store) knownValid(path string, fi os.FileInfo) bool {
	s.mu.Lock()
	known := s.valid[path]
	s.mu.Unlock()
	return known != nil && sameFileState(known, fi)
}

// sameContent reports whether the files a and b hold the same bytes,
// reading both in blocks.
func sameContent(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer func() { _ = fa.Close() }()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer func() { _ = fb.Close() }()
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	if err1 != nil || err2 != nil || sa.Size() != sb.Size() || !sa.Mode().IsRegular() || !sb.Mode().IsRegular() {
		return false
	}
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, erra := io.ReadFull(fa, ba)
		nb, errb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if erra != nil || errb != nil {
			return (erra == io.EOF || erra == io.ErrUnexpectedEOF) && (errb == io.EOF || errb == io.ErrUnexpectedEOF)
		}
	}
}

// copyFile replaces dst with a copy of src, atomically (see replaceFile:
// the caller syncs the directory), file to file in the kernel where it
// can.
func (s *Store) copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	return s.replaceFile(dst, perm, func(w *os.File) error {
		_, err := io.Copy(w, in)
		return err
	})
}
