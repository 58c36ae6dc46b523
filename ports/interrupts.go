package ports

import "time"

// Progress tells the interrupt front end where the run is. The terminal
// ignores it; the headless front end fires scripted interrupts from it.
type Progress struct {
	// Turn is the 1-based number of the Turn within the Run.
	Turn int
	// Phase is "streaming", "tool_call" or "countdown".
	Phase string
	// Deltas counts text and reasoning deltas streamed so far this turn.
	Deltas int
}

// InterruptScope is one pushed handler. Ctrl-C notifications for it
// arrive on C while it is the topmost scope.
type InterruptScope interface {
	// C delivers one value per Ctrl-C routed to this scope.
	C() <-chan struct{}
	// Pop removes the scope, whatever its position; idempotent.
	Pop()
}

// Interrupts is the layered interrupt stack (docs/interrupts.md): one
// router consumes SIGINT once; the first press goes to the topmost scope
// (no scope: graceful shutdown), the second begins a graceful shutdown,
// the third exits with code 130; the count resets after the cooldown.
// SIGTERM is a graceful shutdown. Methods are safe for concurrent use.
type Interrupts interface {
	// Push opens a handler scope of the given kind ("turn", "streaming",
	// "tool_call", "countdown").
	Push(kind string) InterruptScope
	// Escalate counts a Ctrl-C that reached a raw-mode menu or composer as
	// a key instead of a signal: it is a press like any other.
	Escalate()
	// Handled tells the router that the topmost handler finished with the
	// user's choice: the user is at the keyboard, so the escalation count
	// starts over.
	Handled()
	// Shutdown is closed when a graceful shutdown begins. Every
	// long-running part honours it.
	Shutdown() <-chan struct{}
	// Progress reports where the run is (for scripted front ends).
	Progress(p Progress)
	// SetCooldown sets interrupt.escalation_cooldown_secs once the run's
	// configuration is known.
	SetCooldown(d time.Duration)
	// Countdown reports whether a countdown can be interrupted here: a
	// terminal, or a headless script that scripts the countdown. Without
	// one, a queued reply is sent at once.
	Countdown() bool
}

// Timers makes timers, so that countdowns are testable with a fake clock.
type Timers interface {
	// After delivers the time once d has passed.
	After(d time.Duration) <-chan time.Time
}
