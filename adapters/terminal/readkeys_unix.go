//go:build unix

package terminal

import (
	"context"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// readKeys reads what the terminal has (one key press is usually one
// chunk) without blocking past ctx: it polls the descriptor every 100ms
// and checks ctx in between, so no goroutine is left blocked in a read.
func readKeys(ctx context.Context, f *os.File, buf []byte) (int, error) {
	fd := int(f.Fd())
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 100)
		if errors.Is(err, unix.EINTR) || n == 0 {
			continue
		}
		if err != nil {
			return 0, err
		}
		if fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 && fds[0].Revents&unix.POLLIN == 0 {
			return 0, errors.New("terminal closed")
		}
		n, err = unix.Read(fd, buf)
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, errors.New("end of input")
		}
		return n, nil
	}
}
