// Package testkit holds small helpers shared by the tests of several
// packages. It is imported by tests only.
package testkit

import (
	"bytes"
	"strings"
	"sync"
)

// SyncBuffer is a bytes.Buffer safe for concurrent use: a process, a
// logger or a goroutine writes it while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// RepeatedPrefix returns the first part of an error message (a run of
// text between ": " separators) that occurs twice in it, or "" when none
// does: "register checkout X: register checkout X: boom" repeats
// "register checkout X". Parts without a space (a bare word, a path) may
// recur legitimately and are not counted.
func RepeatedPrefix(msg string) string {
	seen := map[string]bool{}
	for _, part := range strings.Split(msg, ": ") {
		part = strings.TrimSpace(part)
		if !strings.Contains(part, " ") {
			continue
		}
		if seen[part] {
			return part
		}
		seen[part] = true
	}
	return ""
}
