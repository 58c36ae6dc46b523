package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickVersionMatchesKong: jp --version and jp version print, byte for
// byte, what kong's path prints, on both streams, with the same exit code.
func TestQuickVersionMatchesKong(t *testing.T) {
	base := t.TempDir()
	env := isolatedEnv(base, filepath.Join(base, "data"), filepath.Join(base, "config"))
	run := func(quick bool, args ...string) (string, string, int) {
		t.Helper()
		quickPaths = quick
		defer func() { quickPaths = true }()
		var out, errb bytes.Buffer
		code := Main(args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, env)
		return out.String(), errb.String(), code
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		wantOut, wantErr, wantCode := run(false, args...)
		gotOut, gotErr, gotCode := run(true, args...)
		if gotOut != wantOut || gotErr != wantErr || gotCode != wantCode {
			t.Errorf("jp %s: quick path printed %q / %q, exit %d; kong printed %q / %q, exit %d",
				args[0], gotOut, gotErr, gotCode, wantOut, wantErr, wantCode)
		}
		if !strings.HasPrefix(gotOut, "jp ") || !strings.HasSuffix(gotOut, ")\n") || gotCode != 0 {
			t.Errorf("jp %s: %q exit %d, want the version line", args[0], gotOut, gotCode)
		}
	}
}

// TestQuickVersionTakesOnlyExactArgs: the quick path answers only the two
// exact argument lists; a flag beside them, help, a completion request or
// anything else goes to kong.
func TestQuickVersionTakesOnlyExactArgs(t *testing.T) {
	s := Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if _, ok := quickVersion(args, nil, s); !ok {
			t.Errorf("%q: not taken", args)
		}
		if _, ok := quickVersion(args, []string{"COMP_LINE=jp " + args[0]}, s); ok {
			t.Errorf("%q while completing: taken", args)
		}
	}
	for _, args := range [][]string{nil, {"-V"}, {"--version", "-h"}, {"version", "--help"}, {"-v", "version"}, {"versions"}, {"--version=true"}, {"q", "--version"}} {
		if _, ok := quickVersion(args, nil, s); ok {
			t.Errorf("%q: taken by the quick path", args)
		}
	}
}
