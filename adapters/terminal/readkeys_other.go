//go:build !unix

package terminal

import (
	"context"
	"os"
)

// readKeys reads what the terminal has. Without poll(2) it blocks until a
// key arrives; ctx is checked before the read only.
func readKeys(ctx context.Context, f *os.File, buf []byte) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return f.Read(buf)
}
