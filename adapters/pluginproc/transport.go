// Package pluginproc runs command plugins as child processes
// (ports.PluginSpawner, ports.PluginTransport) and finds them on disk
// (ports.PluginCatalog). See docs/plugins.md for the protocol.
//
// A plugin runs in its own process group, so the terminal's SIGINT reaches
// jp alone and jp relays it as a shutdown message. Its stdin and stdout
// carry JSON lines; each stderr line goes to a callback (jp's log). When
// the plugin's main process exits, what is left of its process group is
// killed: jp owns the plugin's process tree.
package pluginproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/internal/jsonl"
	"github.com/jpcli/jp/ports"
)

// Transport is a ports.PluginTransport over a pair of pipes: lines are
// written to w and read from r. Spawn builds one over a child process's
// stdin and stdout; NewTransport builds one over any pipes (tests, an
// in-process plugin).
type Transport struct {
	r, w *os.File

	wmu  sync.Mutex
	wbuf []byte

	// Recv reads r directly (no goroutine in between): rmu serialises
	// readers, partial keeps a line cut short by a cancelled Recv.
	rmu     sync.Mutex
	br      *bufio.Reader
	partial []byte
	readErr error

	proc      process // nil for pipe-only transports
	closeOnce sync.Once
	closeErr  error
}

var _ ports.PluginTransport = (*Transport)(nil)

// process is the child behind a transport.
type process interface {
	kill() error
	exited() <-chan struct{}
	status() (ports.PluginExit, error)
	release()
}

// maxLine is the longest line Recv returns; a variable so tests need not
// write 16 MiB.
var maxLine = plugin.MaxLine

// NewTransport reads lines from r and writes lines to w. Both should be
// os.Pipe ends (pollable), so that deadlines let Send and Recv honour ctx;
// Close closes both.
func NewTransport(r, w *os.File) *Transport {
	return &Transport{r: r, w: w, br: bufio.NewReaderSize(r, 64<<10)}
}

// readLine reads one line (see jsonl.ReadLine), a too-long one worded as
// ports.ErrLineTooLong.
func readLine(br *bufio.Reader, buf []byte, max int) ([]byte, error) {
	line, err := jsonl.ReadLine(br, buf, max)
	if errors.Is(err, jsonl.ErrTooLong) {
		return nil, fmt.Errorf("%w: longer than %d bytes", ports.ErrLineTooLong, max)
	}
	return line, err
}

// Recv returns the next line. EOF, a too-long line and a closed pipe stick;
// a cancelled ctx does not (the line read so far is kept for the next
// call).
func (t *Transport) Recv(ctx context.Context) ([]byte, error) {
	t.rmu.Lock()
	defer t.rmu.Unlock()
	if t.readErr != nil {
		return nil, t.readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ctx.Done() != nil {
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			_ = t.r.SetReadDeadline(aLongTimeAgo)
			close(fired)
		})
		defer func() {
			if !stop() {
				<-fired
				_ = t.r.SetReadDeadline(time.Time{})
			}
		}()
	}
	line, err := readLine(t.br, t.partial, maxLine)
	t.partial = nil
	switch {
	case err == nil:
		return line, nil
	case errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil:
		t.partial = line
		return nil, ctx.Err()
	case errors.Is(err, os.ErrClosed):
		err = io.EOF
	}
	t.readErr = err
	return nil, err
}

// aLongTimeAgo is a deadline in the past: it ends a blocked write.
var aLongTimeAgo = time.Unix(1, 0)

// Send writes line and a newline in one write, under the writer lock.
func (t *Transport) Send(ctx context.Context, line []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	buf := append(append(t.wbuf[:0], line...), '\n')
	if cap(buf) <= 1<<20 {
		t.wbuf = buf
	} else {
		t.wbuf = nil // do not keep a huge buffer for the run
	}
	if ctx.Done() == nil {
		_, err := t.w.Write(buf)
		return wrapWrite(err)
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = t.w.SetWriteDeadline(aLongTimeAgo)
		close(fired)
	})
	_, err := t.w.Write(buf)
	if !stop() {
		<-fired
		_ = t.w.SetWriteDeadline(time.Time{})
		if err != nil {
			return ctx.Err()
		}
	}
	return wrapWrite(err)
}

func wrapWrite(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("write to plugin: %w", err)
}

// CloseStdin closes the write end: the plugin reads EOF. A Send blocked
// on a full pipe returns an error.
func (t *Transport) CloseStdin() error {
	if err := t.w.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}

// Kill kills the plugin's process group.
func (t *Transport) Kill() error {
	if t.proc == nil {
		return nil
	}
	return t.proc.kill()
}

// Exited is closed once the process has exited (never for a pipe-only
// transport).
func (t *Transport) Exited() <-chan struct{} {
	if t.proc == nil {
		return nil
	}
	return t.proc.exited()
}

// Wait waits for the process to exit.
func (t *Transport) Wait(ctx context.Context) (ports.PluginExit, error) {
	if t.proc == nil {
		return ports.PluginExit{}, nil
	}
	select {
	case <-t.proc.exited():
		return t.proc.status()
	case <-ctx.Done():
		return ports.PluginExit{}, ctx.Err()
	}
}

// Close kills the process group if it still runs, closes the pipes, and
// waits for the goroutines the spawner started.
func (t *Transport) Close() error {
	t.closeOnce.Do(func() {
		if t.proc != nil {
			_ = t.proc.kill()
		}
		// Closing a pollable pipe end unblocks a Write in progress; taking
		// the writer lock first would wait for it.
		if err := t.w.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			t.closeErr = err
		}
		_ = t.r.Close() // unblocks a Recv in progress
		if t.proc != nil {
			t.proc.release()
		}
	})
	return t.closeErr
}
