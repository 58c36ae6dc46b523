package memstore

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

type lockKey struct {
	ws workspace.ID
	id conversation.ID
}

// Lock takes the conversation's lock, waiting up to wait for its release.
// A lock still held then gives a *ports.LockedError carrying this
// process's pid (every holder of an in-memory lock is this process). Like
// the file store it creates the workspace's silo when needed. The returned
// release is idempotent.
func (s *Store) Lock(ctx context.Context, loc workspace.Location, id conversation.ID, wait time.Duration) (func() error, error) {
	if err := conversation.CheckAddress(loc, id); err != nil {
		return nil, fmt.Errorf("lock conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := lockKey{loc.ID, id}
	var timeout <-chan time.Time
	for {
		s.mu.Lock()
		s.ensureSiloLocked(loc.ID, loc.Root)
		held, ok := s.locks[key]
		if !ok {
			done := make(chan struct{})
			s.locks[key] = done
			s.mu.Unlock()
			return sync.OnceValue(func() error {
				s.mu.Lock()
				delete(s.locks, key)
				s.mu.Unlock()
				close(done)
				return nil
			}), nil
		}
		s.mu.Unlock()
		if timeout == nil {
			if wait <= 0 {
				return nil, &ports.LockedError{Conversation: string(id), PID: os.Getpid()}
			}
			t := time.NewTimer(wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-held:
		case <-timeout:
			return nil, &ports.LockedError{Conversation: string(id), PID: os.Getpid()}
		case <-ctx.Done():
			return nil, fmt.Errorf("lock conversation %s: %w", id, ctx.Err())
		}
	}
}
