// Package sysclock is the real-time ports.Clock and ports.Timers, and the
// random ports.IDGenerator.
package sysclock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/jpcli/jp/ports"
)

// Clock reads the system clock and sleeps on real timers.
type Clock struct{}

var (
	_ ports.Clock       = Clock{}
	_ ports.Timers      = Clock{}
	_ ports.IDGenerator = IDs{}
)

// New returns the system clock.
func New() Clock { return Clock{} }

// Now returns the current time.
func (Clock) Now() time.Time { return time.Now() }

// Sleep waits d or until ctx is done.
func (Clock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// After delivers the time after d.
func (Clock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// IDs makes random 16-hex-digit IDs.
type IDs struct{}

// NewID returns a fresh random ID.
func (IDs) NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
