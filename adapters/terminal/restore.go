package terminal

import (
	"os"
	"reflect"
	"sync"

	"golang.org/x/term"
)

// ttyMu orders the changes of the terminal's mode: a raw-mode menu and
// the type-ahead reader switch modes under it, and the exit on a third
// Ctrl-C restores the mode and exits under it, so that no switch of
// another goroutine (a menu opening as jp shuts down) lands between that
// restore and the exit and leaves the shell a raw terminal.
var ttyMu sync.Mutex

// makeRaw is term.MakeRaw under ttyMu; the function it returns puts the
// mode back, under ttyMu too.
func makeRaw(fd int) (restore func(), err error) {
	ttyMu.Lock()
	defer ttyMu.Unlock()
	old, err := term.MakeRaw(fd)
	if err != nil {
		return nil, err
	}
	return func() {
		ttyMu.Lock()
		defer ttyMu.Unlock()
		_ = term.Restore(fd, old)
	}, nil
}

// savedTerminal is f's terminal mode when jp started.
type savedTerminal struct {
	fd int
	st *term.State // nil: f is not a terminal
}

// saveTerminal records f's terminal mode now.
func saveTerminal(f *os.File) savedTerminal {
	if f == nil || !term.IsTerminal(int(f.Fd())) {
		return savedTerminal{}
	}
	st, err := term.GetState(int(f.Fd()))
	if err != nil {
		return savedTerminal{}
	}
	return savedTerminal{fd: int(f.Fd()), st: st}
}

// restore puts the recorded mode back before an exit on a third Ctrl-C
// (a raw-mode prompt never leaves the terminal broken), shows the cursor
// again and ends any half-drawn line. The caller holds ttyMu.
func (s savedTerminal) restore() {
	if s.st == nil {
		return
	}
	_ = term.Restore(s.fd, s.st)
	_, _ = os.Stderr.WriteString("\x1b[?25h\r\n")
}

// reset puts the recorded mode back when something left the terminal in
// another (a menu's goroutine that did not get to restore it before jp
// ended), and does nothing when the mode is as recorded.
func (s savedTerminal) reset() {
	if s.st == nil {
		return
	}
	ttyMu.Lock()
	defer ttyMu.Unlock()
	if now, err := term.GetState(s.fd); err == nil && reflect.DeepEqual(now, s.st) {
		return
	}
	_ = term.Restore(s.fd, s.st)
	_, _ = os.Stderr.WriteString("\x1b[?25h")
}
