package terminal

import (
	"os"

	"golang.org/x/term"
)

// saveTerminal records f's terminal mode now and returns a function that
// puts it back (a no-op when f is not a terminal). The interrupt router
// calls it before exiting on a third Ctrl-C, so a raw-mode prompt never
// leaves the terminal broken.
func saveTerminal(f *os.File) func() {
	if f == nil || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	st, err := term.GetState(int(f.Fd()))
	if err != nil {
		return func() {}
	}
	return func() {
		_ = term.Restore(int(f.Fd()), st)
		// Show the cursor again and end any half-drawn line.
		_, _ = os.Stderr.WriteString("\x1b[?25h\r\n")
	}
}
