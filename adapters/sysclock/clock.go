// Package sysclock is the real-time ports.Clock.
package sysclock

import (
	"time"

	"github.com/jpcli/jp/ports"
)

// Clock reads the system clock.
type Clock struct{}

var _ ports.Clock = Clock{}

// New returns the system clock.
func New() Clock { return Clock{} }

// Now returns the current time.
func (Clock) Now() time.Time { return time.Now() }
