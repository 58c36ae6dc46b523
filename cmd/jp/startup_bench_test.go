package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// BenchmarkMainVersion: jp --version in process, without the process's
// own start (the runtime and package initialisation, which
// BenchmarkStartupVersion includes): "quick" is the path jp takes (an
// answer before kong is built), "kong" the CLI's construction and parse
// that it skips.
func BenchmarkMainVersion(b *testing.B) {
	env := append(os.Environ(), "PATH="+b.TempDir())
	for _, quick := range []bool{true, false} {
		name := map[bool]string{true: "quick", false: "kong"}[quick]
		b.Run(name, func(b *testing.B) {
			quickPaths = quick
			defer func() { quickPaths = true }()
			for b.Loop() {
				if code := Main([]string{"--version"}, Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, env); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
