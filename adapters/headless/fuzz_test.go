package headless

import (
	"strings"
	"testing"
)

// FuzzParse reads a headless script as a user may write it: no panic,
// and an error is one line naming the file.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"permission read_file Y\n", "# comment\n\npermission * n\nprompt \"Pick\" b\n",
		"interrupt streaming after 3 deltas of turn 2 s\n", "secret \"API key\" abc\n", "prompt\n", "\"\n", "\x00\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, err := Parse("script.txt", text)
		if err != nil && (strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "script.txt")) {
			t.Fatalf("Parse error %q: want one line naming the file", err)
		}
	})
}
