package builtintools

import (
	"os"
	"testing"

	"github.com/jpcli/jp/internal/sandbox"
)

// TestMain makes this test binary the sandbox helper of the shell tool it
// tests (internal/sandbox re-executes the running binary).
func TestMain(m *testing.M) {
	sandbox.Init()
	os.Exit(m.Run())
}
