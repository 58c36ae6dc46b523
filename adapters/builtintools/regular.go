package builtintools

import (
	"io"
	"io/fs"
	"os"
	"syscall"
)

// openRegular opens rel for reading when it is a regular file (or a
// directory, for the caller to turn away in its own words), and refuses
// anything else at once in one line: a named pipe would block open (and
// jp with it) until a writer came, a device or socket is no file to read.
// The path is checked with Lstat first, opened with O_NONBLOCK (so that a
// pipe swapped in meanwhile cannot block it either), and checked again on
// the open file.
func (s *Server) openRegular(tool, rel string) (*os.File, fs.FileInfo, error) {
	fi, err := s.root.Lstat(rel)
	if err != nil {
		return nil, nil, rootErr("read", rel, err)
	}
	if err := special(tool, rel, fi); err != nil {
		return nil, nil, err
	}
	f, err := s.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, rootErr("read", rel, err)
	}
	fi, err = f.Stat()
	if err == nil {
		err = special(tool, rel, fi)
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, rootErr("read", rel, err)
	}
	return f, fi, nil
}

// readRegular reads rel whole when it is a regular file (see
// openRegular); a directory is refused too.
func (s *Server) readRegular(tool, rel string) ([]byte, error) {
	f, fi, err := s.openRegular(tool, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.IsDir() {
		return nil, refuse("%s: %s is a directory, not a regular file", tool, rel)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, rootErr("read", rel, err)
	}
	return b, nil
}

// special refuses what is neither a regular file, a directory nor a
// symbolic link (which openRegular follows, inside the checkout, and
// checks on the open file).
func special(tool, rel string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() || m.IsDir() || m&fs.ModeSymlink != 0 {
		return nil
	}
	kind := "special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeCharDevice != 0:
		kind = "character device"
	case m&fs.ModeDevice != 0:
		kind = "block device"
	}
	return refuse("%s: %s is a %s, not a regular file", tool, rel, kind)
}
