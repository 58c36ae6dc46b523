package ports

import "time"

// Clock tells the time. Inject it so countdowns, idle timers and stored
// timestamps are testable without sleeping.
type Clock interface {
	Now() time.Time
}

// IDGenerator makes unique event IDs.
type IDGenerator interface {
	NewID() string
}
