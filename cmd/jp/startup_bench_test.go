package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// BenchmarkMainVersion: jp --version in process, without the process's
// own start (the runtime and package initialisation, which
// BenchmarkStartupVersion includes): the CLI's construction and parse.
func BenchmarkMainVersion(b *testing.B) {
	env := append(os.Environ(), "PATH="+b.TempDir())
	for b.Loop() {
		if code := Main([]string{"--version"}, Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, env); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
