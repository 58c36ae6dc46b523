// Command jp is a terminal LLM assistant. This package only parses flags,
// builds the app through wire/, calls use cases and maps errors to exit
// codes; the behaviour lives in app/ and domain/. See README.md and docs/.
package main

import (
	"os"

	"github.com/jpcli/jp/internal/sandbox"
)

func main() {
	// jp __sandbox-exec POLICY -- CMD...: the sandbox helper applies the
	// policy to itself and execs CMD (internal/sandbox); it never returns.
	sandbox.Init()
	os.Exit(Main(os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}, os.Environ()))
}
