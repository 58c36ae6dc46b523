package terminal

import (
	"strings"
	"testing"
	"time"
)

func TestProbeSlow(t *testing.T) {
	th := newTheme("dark", false)
	cases := map[string]string{
		"brackets+ticks": strings.Repeat("[`` `", 800),
		"brackets":       strings.Repeat("[", 5000),
		"stars":          strings.Repeat("*a_", 3000),
		"ticks":          strings.Repeat("`", 1) + strings.Repeat("a``b", 2000),
		"quotes":         strings.Repeat(">", 5000) + " x",
		"lists":          strings.Repeat("- ", 3000) + "x",
		"table":          "|" + strings.Repeat("a|", 2000) + "\n|" + strings.Repeat("-|", 2000) + "\n" + strings.Repeat("|x", 2000),
		"links":          strings.Repeat("[a](", 3000),
		"nestedlinks":    strings.Repeat("[", 1000) + strings.Repeat("](u)", 1000),
		"lt":             strings.Repeat("<a:", 5000),
		"paren":          "[a](" + strings.Repeat("(", 5000),
		"wide":           strings.Repeat("漢", 20000),
		"manylines":      strings.Repeat("a|b\n", 5000),
	}
	for name, in := range cases {
		start := time.Now()
		renderMarkdown(in, 7, th)
		t.Logf("%-15s %6d bytes %v", name, len(in), time.Since(start))
	}
}
