package procgroup

import (
	"bytes"
	"fmt"
	"sync"
)

// Capped collects a child's output, keeping at most Max bytes; writes past
// that are accepted and dropped, so the child never blocks or fails on a
// full pipe. It is safe for stdout and stderr to share one.
type Capped struct {
	Max int

	mu        sync.Mutex
	buf       bytes.Buffer
	truncated bool
}

func (c *Capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.Max - c.buf.Len(); room < len(p) {
		c.truncated = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// String is what was kept, followed by "[output cut at N bytes]" on a
// line of its own when some was dropped.
func (c *Capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.truncated {
		return c.buf.String() + fmt.Sprintf("\n[output cut at %d bytes]\n", c.Max)
	}
	return c.buf.String()
}

// Truncated reports whether some output was dropped.
func (c *Capped) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.truncated
}
