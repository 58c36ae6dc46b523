//go:build !linux

package terminal

import (
	"errors"
	"os"
)

// keysMode is not built here: there is no type-ahead.
func keysMode(*os.File) (func(), error) {
	return nil, errors.New("type-ahead needs Linux")
}

// pressCtrlC is never called here: there is no key reader.
func pressCtrlC() {}
