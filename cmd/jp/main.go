// Command jp is a terminal LLM assistant. This package only parses flags,
// builds the app through wire/, calls use cases and maps errors to exit
// codes; the behaviour lives in app/ and domain/. See README.md and docs/.
package main

import (
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}, os.Environ()))
}
