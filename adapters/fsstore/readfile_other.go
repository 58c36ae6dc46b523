//go:build !unix

package fsstore

import "os"

// readSmallFile reads a whole file; buf is unused on this platform.
func readSmallFile(path string, _ *[]byte) ([]byte, error) {
	return os.ReadFile(path)
}
