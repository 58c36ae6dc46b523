package pluginhost

import (
	"log/slog"
	"sync"
)

// heldLocks are the conversation locks a plugin took with lock, by
// workspace and conversation (lockKey), with their release functions. They are released on
// unlock, on exit, and when the plugin dies.
type heldLocks struct {
	mu sync.Mutex
	m  map[string]func() error
}

// holds reports whether the plugin holds conv's lock.
func (l *heldLocks) holds(conv string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.m[conv]
	return ok
}

// add records a lock taken for the plugin; a second lock of the same
// conversation (two concurrent requests) is released at once.
func (l *heldLocks) add(conv string, release func() error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.m[conv]; ok {
		_ = release()
		return
	}
	l.m[conv] = release
}

// release releases conv's lock; false when the plugin does not hold it.
func (l *heldLocks) release(conv string, log *slog.Logger, name string) bool {
	l.mu.Lock()
	rel, ok := l.m[conv]
	delete(l.m, conv)
	l.mu.Unlock()
	if ok {
		if err := rel(); err != nil {
			log.Warn("release conversation lock", "plugin", name, "conversation", conv, "error", err)
		}
	}
	return ok
}

// with runs fn while the set cannot change, telling it whether the plugin
// holds conv's lock, so that a change made under the plugin's lock cannot
// race its unlock.
func (l *heldLocks) with(conv string, fn func(held bool) error) error {
	l.mu.Lock()
	if _, ok := l.m[conv]; ok {
		defer l.mu.Unlock()
		return fn(true)
	}
	l.mu.Unlock()
	return fn(false)
}

// releaseAll releases every lock the plugin holds.
func (l *heldLocks) releaseAll(log *slog.Logger, name string) {
	l.mu.Lock()
	held := l.m
	l.m = map[string]func() error{}
	l.mu.Unlock()
	for conv, rel := range held {
		if err := rel(); err != nil {
			log.Warn("release conversation lock", "plugin", name, "conversation", conv, "error", err)
		}
	}
}

// lockKey names a conversation's lock: it lives in the workspace's
// user-local store, so every checkout of the workspace shares it (a lock
// taken through one checkout is held for all of them).
func lockKey(c *checkout, conv string) string { return conv + "@" + string(c.loc.ID) }
