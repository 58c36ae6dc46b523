//go:build !unix

package fsstore

import (
	"os"
	"path/filepath"
	"strconv"
)

// noFollow is unavailable here; confine checks paths before use.
const noFollow = 0

// dirHandle is a directory that files are read relative to.
type dirHandle struct {
	fd   int // unused here
	path string
}

func openDir(path string) (dirHandle, error) { return dirHandle{fd: -1, path: path}, nil }

func (d dirHandle) close() {}

// readFile reads the file rel under d; buf is unused on this platform.
func (d dirHandle) readFile(rel string, _ *[]byte) ([]byte, error) {
	return os.ReadFile(filepath.Join(d.path, rel))
}

// appendStamp appends to b the identity of the file rel under d (size,
// modification time), or "-" when there is none.
func (d dirHandle) appendStamp(b []byte, rel string) []byte {
	fi, err := os.Lstat(filepath.Join(d.path, rel))
	if err != nil {
		return append(b, '-')
	}
	b = strconv.AppendInt(b, fi.Size(), 10)
	b = append(b, ' ')
	return strconv.AppendInt(b, fi.ModTime().UnixNano(), 10)
}
