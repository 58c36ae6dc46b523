//go:build unix

package terminal

import (
	"os"
	"os/signal"
	"syscall"
)

// watchResize delivers a value when the terminal is resized (SIGWINCH)
// until stop is called.
func watchResize() (c <-chan os.Signal, stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	return ch, func() { signal.Stop(ch) }
}
