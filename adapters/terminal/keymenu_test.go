package terminal

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/jpcli/jp/ports"
)

// TestLayoutMenuWordBoundaries: a key menu is laid out at the width
// without splitting a word or an option's key from its label, and no row
// is wider than the terminal (the space before the answer included).
func TestLayoutMenuWordBoundaries(t *testing.T) {
	opts := []ports.Option{
		{Key: "y", Label: "run"}, {Key: "Y", Label: "run, remember for this run"},
		{Key: "n", Label: "skip"}, {Key: "N", Label: "skip, remember for this run"},
		{Key: "e", Label: "edit the arguments"}, {Key: "c", Label: "always for this conversation"},
		{Key: "w", Label: "always for this workspace"},
	}
	msg := `Run tool fs_modify_file: modify greet.txt (1 replacement) and then something long enough to wrap the question itself?`
	for _, width := range []int{30, 80, 120} {
		rows := layoutMenu(msg, opts, width)
		var plain []string
		for i, r := range rows {
			p := ansi.Strip(r.text)
			if got := ansi.StringWidth(p); got != r.width {
				t.Fatalf("width %d: row %d measures %d, recorded %d", width, i, got, r.width)
			}
			if r.width+1 > width && !(i < len(rows)-1 && r.width <= width) {
				t.Errorf("width %d: row %q is %d columns wide", width, p, r.width)
			}
			plain = append(plain, p)
		}
		words := strings.Fields(msg)
		for _, o := range opts {
			words = append(words, "["+o.Key+"]")
			words = append(words, strings.Fields(o.Label)...)
		}
		rowWords := map[string]int{}
		for _, p := range plain {
			for _, w := range strings.Fields(p) {
				rowWords[w]++
			}
		}
		for _, w := range words {
			if rowWords[w] == 0 {
				t.Errorf("width %d: %q was split across rows:\n%s", width, w, strings.Join(plain, "\n"))
			}
		}
		joined := strings.Join(plain, "\n")
		for _, o := range opts {
			if !strings.Contains(joined, "["+o.Key+"] "+strings.Fields(o.Label)[0]) {
				t.Errorf("width %d: [%s] is apart from its label:\n%s", width, o.Key, joined)
			}
		}
	}
	if rows := layoutMenu("Question?", opts[:2], 0); len(rows) != 2 {
		t.Fatalf("unknown width: want the question and one menu row, got %d rows", len(rows))
	}
}
