package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readStdin ends what it read with a newline, added in the byte it keeps
// for it (so the piped text attached before a message needs no copy), and
// reads nothing from empty input.
func TestReadStdinEndsWithANewline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"abc", "abc\n"},
		{"abc\n", "abc\n"},
		{"abc\n\n", "abc\n\n"},
		{"caf\u00e9\r\n", "caf\u00e9\r\n"},
	} {
		path := filepath.Join(dir, "in")
		if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readStdin(f, 1<<20)
		_ = f.Close()
		if err != nil || got != tc.want {
			t.Errorf("readStdin(file %q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if got, err := readStdin(strings.NewReader(tc.in), 1<<20); err != nil || got != tc.want {
			t.Errorf("readStdin(pipe %q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
