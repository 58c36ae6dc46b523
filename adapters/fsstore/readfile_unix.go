//go:build unix

package fsstore

import (
	"io/fs"
	"syscall"
)

// readSmallFile reads a whole small file into *buf, reusing its storage;
// the result is valid until the next call with the same buf. It uses raw
// system calls (open, read, close) because os.Open spends several more on
// the poller, which dominate when List reads thousands of tiny files. A
// short read ends the file: the files read this way are only ever
// replaced by rename, never written in place.
func readSmallFile(path string, buf *[]byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer func() { _ = syscall.Close(fd) }()
	b := (*buf)[:0]
	if cap(b) < 4096 {
		b = make([]byte, 0, 8192)
	}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		room := cap(b) - len(b)
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		b = b[:len(b)+n]
		if n == 0 || n < room {
			break
		}
	}
	*buf = b
	return b, nil
}
