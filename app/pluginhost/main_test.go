package pluginhost_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine a plugin run starts (the session's reader, writer and
// handlers, delegated turns) is stopped before Run returns.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
