package fsstore

import (
	"bytes"
	"io"
	"io/fs"
	"os"
)

// sameFileState reports whether a and b are the same file, unchanged
// (nil: missing).
func sameFileState(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
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
