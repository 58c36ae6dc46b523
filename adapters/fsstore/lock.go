package fsstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// lockPoll is how often Lock retries a held lock.
const lockPoll = 20 * time.Millisecond

// Lock takes the conversation's flock on <silo>/locks/<conv>.lock, waiting
// up to wait (polling) while another holder has it, and writes the holder's
// pid into the file. A lock still held after wait gives a
// *ports.LockedError with the holder's pid. The lock dies with the process;
// the returned release is idempotent.
func (s *Store) Lock(ctx context.Context, loc workspace.Location, id conversation.ID, wait time.Duration) (func() error, error) {
	if err := conversation.CheckAddress(loc, id); err != nil {
		return nil, fmt.Errorf("lock conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	silo, err := s.ensureSilo(loc.ID, loc.Root)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(silo, locksDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock conversation %s: %w", id, err)
	}
	path := filepath.Join(dir, string(id)+".lock")
	if err := confineUnder(silo, path); err != nil {
		return nil, err
	}
	fl := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	deadline := time.Now().Add(wait)
	for {
		ok, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("lock conversation %s: %w", id, err) // err names the file
		}
		if ok {
			break
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, &ports.LockedError{Conversation: string(id), PID: readPID(path)}
		}
		t := time.NewTimer(min(lockPoll, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("lock conversation %s: %w", id, ctx.Err())
		case <-t.C:
		}
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		_ = fl.Close()
		return nil, fmt.Errorf("lock conversation %s: write pid: %w", id, err)
	}
	key := lockKey(loc, id)
	s.mu.Lock()
	s.held[key]++
	s.mu.Unlock()
	return sync.OnceValue(func() error {
		s.mu.Lock()
		if s.held[key]--; s.held[key] <= 0 {
			delete(s.held, key)
		}
		s.mu.Unlock()
		_ = os.Truncate(path, 0) // we still hold it: nobody reads a stale pid
		if err := fl.Close(); err != nil {
			return fmt.Errorf("unlock conversation %s: %w", id, err)
		}
		// The lock of a conversation removed while it was held (jp q
		// --tmp) goes with it: nothing of the conversation stays behind.
		if p, err := s.locate(loc, id); err == nil && !p.inSilo && !p.inProj {
			_ = os.Remove(path)
		}
		return nil
	}), nil
}

// lockKey names a conversation in held.
func lockKey(loc workspace.Location, id conversation.ID) string {
	return string(loc.ID) + "/" + string(id)
}

// holds reports whether this process holds the conversation's lock.
func (s *Store) holds(loc workspace.Location, id conversation.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[lockKey(loc, id)] > 0
}

// readPID reads the holder's pid from a lock file; 0 when unknown.
func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid < 0 {
		return 0
	}
	return pid
}
