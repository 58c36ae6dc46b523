// Command rsswrap runs a command and writes its peak resident memory in
// KiB to the file named by RSSWRAP_OUT. The scale benchmarks run jp
// through it: a child's ru_maxrss counts the memory of the process that
// started it (the kernel records it at exec), and the benchmark process,
// which generated a long conversation, is large; this one is small.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && os.Getenv("RSSWRAP_OUT") != "" {
		_ = os.WriteFile(os.Getenv("RSSWRAP_OUT"), fmt.Appendf(nil, "%d\n", ru.Maxrss), 0o644)
	}
	if err != nil {
		os.Exit(cmd.ProcessState.ExitCode())
	}
}
