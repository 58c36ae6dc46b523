//go:build !linux

package sandbox

import (
	"strings"
	"testing"
)

func TestNotAvailableHere(t *testing.T) {
	if err := Status(); err == nil || !strings.Contains(err.Error(), "not available here") {
		t.Fatalf("Status() = %v, want not available here", err)
	}
}
