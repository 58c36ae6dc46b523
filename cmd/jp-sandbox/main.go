// Command jp-sandbox is jp's sandbox helper, installed beside jp: jp runs
// `jp-sandbox __sandbox-exec POLICY -- CMD...` to start a command the
// model asked for under Landlock and seccomp (internal/sandbox). It is
// jp's own `jp __sandbox-exec` without the rest of jp, so a sandboxed
// command starts in a few milliseconds instead of paying for every
// package jp links. Run by hand it only says what it is.
package main

import (
	"fmt"
	"os"

	"github.com/jpcli/jp/internal/sandbox"
)

func main() {
	sandbox.Init()
	fmt.Fprintln(os.Stderr, "jp-sandbox: jp's sandbox helper; jp runs it, see docs/tools.md (Sandbox)")
	os.Exit(2)
}
