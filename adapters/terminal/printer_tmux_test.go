package terminal

import (
	"strings"
	"testing"
)

// TestPrinterInTmux streams a markdown answer word by word to a real
// terminal (printDemo in helper_test.go) and checks what is left: every
// block redrawn rendered, nothing of the raw echo left behind.
func TestPrinterInTmux(t *testing.T) {
	p := startPane(t, "print")
	p.waitFor("HELPER DONE")
	// The screen and its history: tmux's "Pane is dead" notice may scroll
	// the screen, and with scroll-on-clear, erasing from the top left
	// corner moves the screen into the history.
	lines := strings.Split(p.tmux("capture-pane", "-p", "-S", "-", "-t", "t"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	got := strings.Join(lines, "\n")
	want := "Plan\n\n" +
		"First, read the config file and check every key. This paragraph is long enough to wrap on a narrow terminal, which tests\n" +
		"the erase logic.\n\n" +
		"• one\n• two\n\n" +
		"  func main() {\n\n      fmt.Println(1)\n  }\n\n" +
		"Done.\nchrome line\nHELPER DONE\n"
	if !strings.Contains(got, want) {
		t.Errorf("screen and history:\n%s\nwant them to contain:\n%s", got, want)
	}
	if scr := p.screen(); strings.Contains(scr, "**") || strings.Contains(scr, "```") || strings.Contains(scr, "- one") {
		t.Errorf("raw markdown left on the screen:\n%s", scr)
	}
}
