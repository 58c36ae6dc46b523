package app

import (
	"strings"
	"testing"
)

func TestSanitizeTitle(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 40)
	for in, want := range map[string]string{
		"Reversing a list":                    "Reversing a list",
		"\n\n  \"Reversing a list.\"  \nmore": "Reversing a list",
		"## Title: Fix the build":             "Fix the build",
		"title: `ci flakes`":                  "ci flakes",
		"bell\a and\x1b]52;c;x\x07 osc\u009b": "bell and ]52;c;x osc",
		"“Curly quotes”":                      "Curly quotes",
		"tabs\tand\u2028separators":           "tabs and separators",
		"   ":                                 "",
		long:                                  strings.TrimSpace(long[:maxGeneratedTitle-1]) + "…",
	} {
		got := sanitizeTitle(in)
		if got != want {
			t.Errorf("sanitizeTitle(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
			t.Errorf("sanitizeTitle(%q) = %q holds control bytes", in, got)
		}
	}
}
