//go:build unix

package fsstore

import (
	"io/fs"
	"syscall"
)

// fileID is the file's inode number.
func fileID(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) //nolint:unconvert // Ino is not uint64 everywhere
	}
	return 0
}
