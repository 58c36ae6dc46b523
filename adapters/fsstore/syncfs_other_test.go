//go:build !unix

package fsstore

import "time"

func flushAll() {}

func cpuTime() time.Duration { return 0 }
