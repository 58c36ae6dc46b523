package terminal

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if scenario := os.Getenv(helperEnv); scenario != "" {
		os.Exit(runHelper(scenario))
	}
	goleak.VerifyTestMain(m)
}
