//go:build !unix

package terminal

import "os"

// watchResize: no resize notifications here; menus keep their layout.
func watchResize() (c <-chan os.Signal, stop func()) { return nil, func() {} }
