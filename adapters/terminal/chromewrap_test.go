package terminal

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestWrapChrome: a chrome note longer than the terminal (the demo
// model's hint at 80 columns) breaks between words, every word whole.
func TestWrapChrome(t *testing.T) {
	hint := "Using demo/echo (no model is set and no API key was found). Set assistant.model.id (e.g. --model openai/gpt-4o) or ANTHROPIC_API_KEY / OPENAI_API_KEY to use a real model."
	for _, width := range []int{40, 80, 120} {
		got := wrapChrome(hint, width)
		if strings.Join(strings.Fields(got), " ") != hint {
			t.Fatalf("width %d: words changed:\n%s", width, got)
		}
		rows := strings.Split(got, "\n")
		for _, r := range rows {
			if ansi.StringWidth(r) > width {
				t.Fatalf("width %d: row %q is wider", width, r)
			}
		}
		words := map[string]bool{}
		for _, r := range rows {
			for _, w := range strings.Fields(r) {
				words[w] = true
			}
		}
		for _, w := range strings.Fields(hint) {
			if !words[w] {
				t.Fatalf("width %d: %q split across rows:\n%s", width, w, got)
			}
		}
	}
	if got := wrapChrome("short", 80); got != "short" {
		t.Fatal(got)
	}
}
