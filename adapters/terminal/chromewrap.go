package terminal

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrapChrome breaks a chrome line (a note such as the demo model's hint)
// at word boundaries to width columns (0: 80), so that the terminal never
// splits it inside a word. A word wider than the row (a long path) is
// left whole. Text with escape sequences is left alone: the sanitiser
// shows them, and their codes are not words.
func wrapChrome(text string, width int) string {
	if width <= 0 {
		width = 80
	}
	if strings.ContainsRune(text, '\x1b') || ansi.StringWidth(text) <= width && !strings.Contains(text, "\n") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Wordwrap(l, width, "")
		}
	}
	return strings.Join(lines, "\n")
}
