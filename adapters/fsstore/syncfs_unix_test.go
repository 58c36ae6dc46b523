//go:build unix

package fsstore

import (
	"syscall"
	"time"
)

// flushAll writes back dirty pages, so that benchmarks set up without
// fsync do not measure the kernel's background writeback.
func flushAll() { syscall.Sync() }

// cpuTime is the user and system CPU time this process has used, so that
// benchmarks can report cost independent of other load on the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
