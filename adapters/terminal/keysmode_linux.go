//go:build linux

package terminal

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// keysMode turns off echo and line editing on f for reading single keys,
// keeping signals (Ctrl-C stays SIGINT) and output processing; restore
// puts the terminal back as it was.
func keysMode(f *os.File) (restore func(), err error) {
	fd := int(f.Fd())
	ttyMu.Lock()
	defer ttyMu.Unlock()
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Lflag &^= unix.ICANON | unix.ECHO
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &t); err != nil {
		return nil, err
	}
	return func() {
		ttyMu.Lock()
		defer ttyMu.Unlock()
		_ = unix.IoctlSetTermios(fd, unix.TCSETS, old)
	}, nil
}

// pressCtrlC delivers a Ctrl-C read as a byte as the signal it stands for.
func pressCtrlC() { _ = syscall.Kill(os.Getpid(), syscall.SIGINT) }
