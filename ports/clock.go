package ports

import (
	"context"
	"time"
)

// Clock tells the time. Inject it so countdowns, idle timers and stored
// timestamps are testable without sleeping.
type Clock interface {
	Now() time.Time
}

// Sleeper waits; tests inject one that records instead of sleeping.
type Sleeper interface {
	// Sleep returns after d, or early with ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// IDGenerator makes unique event IDs.
type IDGenerator interface {
	NewID() string
}
