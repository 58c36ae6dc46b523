//go:build linux || darwin

package pluginproc

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// digestKey identifies the content of the file fi describes without
// reading it: device, inode, size, mtime and ctime. The ctime changes with
// every write and every utime call and cannot be set back by the file's
// owner, so a file rewritten to the same size and mtime gets another key.
// It also returns the ctime.
func digestKey(fi os.FileInfo) (string, time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", time.Time{}, false
	}
	ct := ctimeNanos(st)
	return fmt.Sprintf("%d:%d:%d:%d:%d", st.Dev, st.Ino, fi.Size(), fi.ModTime().UnixNano(), ct), time.Unix(0, ct), true
}
