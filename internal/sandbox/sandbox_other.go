//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
)

func status() error {
	return errors.New("jp's sandbox is not available here (" + runtime.GOOS + "): it needs Linux with Landlock")
}

// ABI is the kernel's Landlock ABI version: 0 here.
func ABI() int { return 0 }

// NetworkByLandlock is false here.
func NetworkByLandlock() bool { return false }

func applyAndExec(Policy, []string) error { return status() }

// Describe says why there is no sandbox here.
func Describe() string { return status().Error() }
