//go:build unix

package fsstore

import (
	"io/fs"
	"os"
	"syscall"
)

// ownershipChecked: the upward search checks owners on this system.
const ownershipChecked = true

// currentUID is the user jp runs as.
func currentUID() uint32 { return uint32(os.Getuid()) } //nolint:gosec // a uid is never negative on unix

// ownerOf is the owner of the file fi describes; ok is false when the
// system does not say.
func ownerOf(fi fs.FileInfo) (uid uint32, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
