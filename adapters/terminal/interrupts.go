package terminal

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/jpcli/jp/domain/interrupt"
	"github.com/jpcli/jp/ports"
)

// Interrupts is the layered interrupt stack for a terminal
// (docs/interrupts.md): one router consumes SIGINT once and routes each
// press by the escalation rule: the first to the topmost scope (no scope: graceful
// shutdown), the second begins a graceful shutdown, the third restores the
// terminal and exits with code 130. SIGTERM begins a graceful shutdown.
// Start it before anything else and Close it last.
type Interrupts struct {
	mu        sync.Mutex
	scopes    []*scope
	esc       interrupt.Escalation
	shutdown  chan struct{}
	shutOnce  sync.Once
	countdown bool

	now     func() time.Time
	exit    func(int)
	restore func()
	saved   savedTerminal // the mode at NewInterrupts, for Close

	sigs chan os.Signal
	done chan struct{}
	wg   sync.WaitGroup
}

var _ ports.Interrupts = (*Interrupts)(nil)

// InterruptOptions configure the router.
type InterruptOptions struct {
	// Countdown: a terminal is attached, so a queued reply's countdown can
	// be interrupted.
	Countdown bool
	// Now, Exit and Restore are injected for tests; the defaults are
	// time.Now, os.Exit, and restoring stdin's terminal mode as it was at
	// NewInterrupts.
	Now     func() time.Time
	Exit    func(int)
	Restore func()
}

// NewInterrupts returns a router; call Start to receive signals.
func NewInterrupts(o InterruptOptions) *Interrupts {
	i := &Interrupts{
		shutdown:  make(chan struct{}),
		countdown: o.Countdown,
		now:       o.Now, exit: o.Exit, restore: o.Restore,
		esc:  interrupt.Escalation{Cooldown: 2 * time.Second},
		done: make(chan struct{}),
	}
	if i.now == nil {
		i.now = time.Now
	}
	if i.exit == nil {
		i.exit = os.Exit
	}
	if i.restore == nil {
		i.saved = saveTerminal(os.Stdin)
		i.restore = i.saved.restore
	}
	return i
}

// Start subscribes to SIGINT and SIGTERM. The goroutine it starts is
// stopped by Close.
func (i *Interrupts) Start() {
	i.sigs = make(chan os.Signal, 4)
	signal.Notify(i.sigs, os.Interrupt, syscall.SIGTERM)
	i.wg.Add(1)
	go func() {
		defer i.wg.Done()
		for {
			select {
			case s := <-i.sigs:
				if s == syscall.SIGTERM {
					i.beginShutdown()
					continue
				}
				i.Press()
			case <-i.done:
				return
			}
		}
	}()
}

// Close stops receiving signals and puts the terminal back in the mode
// it had at NewInterrupts when something left it in another (a menu
// whose goroutine was still open as jp ended); idempotent.
func (i *Interrupts) Close() {
	i.mu.Lock()
	select {
	case <-i.done:
		i.mu.Unlock()
		return
	default:
	}
	close(i.done)
	i.mu.Unlock()
	if i.sigs != nil {
		signal.Stop(i.sigs)
	}
	i.wg.Wait()
	i.saved.reset()
}

// exitNow restores the terminal and exits with 130, both under ttyMu so
// that no mode switch of another goroutine lands in between (os.Exit
// never returns; an injected exit does, in tests).
func (i *Interrupts) exitNow() {
	ttyMu.Lock()
	defer ttyMu.Unlock()
	i.restore()
	i.exit(130)
}

// Press handles one Ctrl-C press, delivered as a signal or injected (the
// headless front end scripts presses through it).
func (i *Interrupts) Press() {
	i.mu.Lock()
	lvl := i.esc.Press(i.now())
	var top *scope
	if n := len(i.scopes); n > 0 {
		top = i.scopes[n-1]
	}
	i.mu.Unlock()
	switch lvl {
	case interrupt.LevelHandler:
		if top == nil {
			i.beginShutdown()
			return
		}
		select {
		case top.c <- struct{}{}:
		default: // one notification pending is enough
		}
	case interrupt.LevelShutdown:
		i.beginShutdown()
	default:
		i.exitNow()
	}
}

// Escalate counts a Ctrl-C that reached a raw-mode menu as a key.
func (i *Interrupts) Escalate() {
	i.mu.Lock()
	lvl := i.esc.Press(i.now())
	i.mu.Unlock()
	if lvl == interrupt.LevelExit {
		i.exitNow()
		return
	}
	i.beginShutdown()
}

// Handled resets the escalation count after a handler's menu was answered.
func (i *Interrupts) Handled() {
	i.mu.Lock()
	i.esc.Reset()
	i.mu.Unlock()
}

func (i *Interrupts) beginShutdown() {
	i.shutOnce.Do(func() { close(i.shutdown) })
}

// Shutdown is closed when a graceful shutdown begins.
func (i *Interrupts) Shutdown() <-chan struct{} { return i.shutdown }

// Push adds a scope on top of the stack. The router routes by position
// only: the kind is not needed.
func (i *Interrupts) Push(string) ports.InterruptScope {
	s := &scope{c: make(chan struct{}, 1), owner: i}
	i.mu.Lock()
	i.scopes = append(i.scopes, s)
	i.mu.Unlock()
	return s
}

// Progress is ignored on a terminal.
func (i *Interrupts) Progress(ports.Progress) {}

// SetCooldown sets the escalation cooldown.
func (i *Interrupts) SetCooldown(d time.Duration) {
	i.mu.Lock()
	i.esc.Cooldown = d
	i.mu.Unlock()
}

// Countdown reports whether a terminal is attached.
func (i *Interrupts) Countdown() bool { return i.countdown }

// Depth is the number of pushed scopes (for tests).
func (i *Interrupts) Depth() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return len(i.scopes)
}

type scope struct {
	c     chan struct{}
	owner *Interrupts
	once  sync.Once
}

func (s *scope) C() <-chan struct{} { return s.c }

// Pop removes the scope by identity, wherever it is in the stack.
func (s *scope) Pop() {
	s.once.Do(func() {
		i := s.owner
		i.mu.Lock()
		defer i.mu.Unlock()
		for k := len(i.scopes) - 1; k >= 0; k-- {
			if i.scopes[k] == s {
				i.scopes = append(i.scopes[:k], i.scopes[k+1:]...)
				// A press the scope never read is not lost: it moves to
				// the scope now on top (no dead zones).
				select {
				case <-s.c:
					if n := len(i.scopes); n > 0 && k == n {
						select {
						case i.scopes[n-1].c <- struct{}{}:
						default:
						}
					}
				default:
				}
				return
			}
		}
	})
}
