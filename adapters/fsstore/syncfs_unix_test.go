//go:build unix

package fsstore

import "syscall"

// flushAll writes back dirty pages, so that benchmarks set up without
// fsync do not measure the kernel's background writeback.
func flushAll() { syscall.Sync() }
