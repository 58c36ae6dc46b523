//go:build unix

package fsstore

import (
	"io/fs"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/jpcli/jp/ports"
)

// noFollow makes an open fail on a symbolic link.
const noFollow = unix.O_NOFOLLOW

// dirHandle is an open directory that files are read relative to, so that
// reading thousands of files under it does not resolve its path each time.
type dirHandle struct {
	fd   int
	path string
}

// openDir opens a directory for reading files relative to it.
func openDir(path string) (dirHandle, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return dirHandle{fd: -1}, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return dirHandle{fd: fd, path: path}, nil
	}
}

func (d dirHandle) close() {
	if d.fd >= 0 {
		_ = unix.Close(d.fd)
	}
}

// readFile reads the small file rel (relative to d) into *buf, reusing its
// storage; the result is valid until the next call with the same buf. It
// uses raw system calls (openat, read, close) because os.Open spends
// several more on the poller, which dominate when List reads thousands of
// tiny files. A short read ends the file: files read this way are only
// ever replaced by rename, never written in place.
func (d dirHandle) readFile(rel string, buf *[]byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Openat(d.fd, rel, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.ELOOP {
		return nil, &ports.LinkError{Path: filepath.Join(d.path, rel)}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(d.path, rel), Err: err}
	}
	defer func() { _ = unix.Close(fd) }()
	b := (*buf)[:0]
	if cap(b) < 4096 {
		b = make([]byte, 0, 8192)
	}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		room := cap(b) - len(b)
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: filepath.Join(d.path, rel), Err: err}
		}
		b = b[:len(b)+n]
		if n == 0 || n < room {
			break
		}
	}
	*buf = b
	return b, nil
}

// appendStamp appends to b the identity of the file rel under d (inode,
// size, modification time), or "-" when there is none.
func (d dirHandle) appendStamp(b []byte, rel string) []byte {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, rel, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return append(b, '-')
		}
		break
	}
	b = strconv.AppendUint(b, uint64(st.Ino), 10) //nolint:unconvert // Ino is not uint64 everywhere
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(st.Size), 10) //nolint:unconvert // nor Size int64
	b = append(b, ' ')
	sec, nsec := st.Mtim.Unix()
	return strconv.AppendInt(b, sec*1e9+nsec, 10)
}
