package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jpcli/jp/app"
)

// maxOutboxBytes bounds what may wait in a session's outbox: a plugin
// that asks and asks without reading its answers is stopped past it.
const maxOutboxBytes = 64 << 20

// errOutboxClosed is what a send gets once the session has ended.
var errOutboxClosed = errors.New("plugin session ended")

// outbox is a session's queue of lines to the plugin. The read loop (and
// every handler) only appends to it, so a plugin that does not read its
// stdin never blocks the loop: the loop goes on reading, and handles exit
// whatever is still queued. One writer goroutine (the session's) drains
// it; a write that does not complete within plugins.write_timeout_secs,
// or a queue past maxOutboxBytes, stops the plugin.
type outbox struct {
	mu     sync.Mutex
	lines  [][]byte
	bytes  int
	closed bool
	wake   chan struct{} // one pending wake-up for the writer
	done   chan struct{} // closed when the writer has returned
}

func newOutbox() *outbox {
	return &outbox{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// put queues line. It fails once the outbox is closed, and with
// errOutboxFull when the queue would outgrow its bound.
func (o *outbox) put(line []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return errOutboxClosed
	}
	if o.bytes > 0 && o.bytes+len(line) > maxOutboxBytes {
		return errOutboxFull
	}
	o.lines = append(o.lines, line)
	o.bytes += len(line)
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return nil
}

// errOutboxFull says the plugin leaves too much unread.
var errOutboxFull = fmt.Errorf("more than %d MiB of messages to it are waiting", maxOutboxBytes>>20)

// take returns the next line, waiting for one until ctx ends.
func (o *outbox) take(ctx context.Context) ([]byte, bool) {
	for {
		o.mu.Lock()
		if len(o.lines) > 0 {
			line := o.lines[0]
			o.lines[0] = nil
			o.lines = o.lines[1:]
			o.bytes -= len(line)
			o.mu.Unlock()
			return line, true
		}
		closed := o.closed
		o.mu.Unlock()
		if closed {
			return nil, false
		}
		select {
		case <-o.wake:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// close refuses further lines and drops the queued ones.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed, o.lines, o.bytes = true, nil, 0
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// startWriter starts the goroutine that writes the outbox to the plugin.
// It runs until ctx ends (finish cancels it) or the plugin is stopped.
func (s *session) startWriter(ctx context.Context) {
	go func() {
		defer close(s.outq.done)
		for {
			line, ok := s.outq.take(ctx)
			if !ok {
				return
			}
			if err := s.write(ctx, line); err != nil {
				s.outq.close()
				return
			}
		}
	}()
}

// write sends one line, giving the plugin plugins.write_timeout_secs to
// take it (0: no limit).
func (s *session) write(ctx context.Context, line []byte) error {
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if s.writeTimeout > 0 {
		wctx, cancel = context.WithTimeout(ctx, s.writeTimeout)
	}
	err := s.conn.Send(wctx, line)
	cancel()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return err
	case errors.Is(err, context.DeadlineExceeded):
		s.stopStalled(fmt.Sprintf("did not read its stdin for %s (plugins.write_timeout_secs)", s.writeTimeout))
	default:
		s.log.Debug("plugin stdin closed", "plugin", s.name, "error", err)
	}
	return err
}

// stopStalled stops a plugin that does not read what jp writes to it;
// the run ends with one line naming it and why.
func (s *session) stopStalled(why string) {
	s.stalled.CompareAndSwap(nil, &app.UserError{Msg: fmt.Sprintf("plugin %s %s; it was stopped", s.name, why)})
	s.log.Info("plugin not reading its stdin; stopping it", "plugin", s.name, "why", why)
	_ = s.conn.Kill()
}

// stopWriter ends the writer goroutine and waits for it: nothing is
// written to the plugin after it returns.
func (s *session) stopWriter(cancel context.CancelFunc) {
	s.outq.close()
	cancel()
	<-s.outq.done
}
