package procgroup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// started makes a FIFO the child opens once it has set itself up; reading
// it is the test's readiness signal.
func started(t *testing.T) (path string, wait func() string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "started")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
}

// TestRunStopsTheWholeGroup: a cancelled Run terminates the child and the
// grandchild it started, and kills them after grace when they ignore
// SIGTERM.
func TestRunStopsTheWholeGroup(t *testing.T) {
	for _, tc := range []struct {
		name, trap string
	}{{"SIGTERM", ""}, {"SIGKILL after grace", "trap '' TERM;"}} {
		t.Run(tc.name, func(t *testing.T) {
			fifo, wait := started(t)
			cmd := exec.Command("sh", "-c", tc.trap+" sh -c '"+tc.trap+" sleep 60' & echo $! > "+fifo+"; wait")
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- Run(ctx, cmd, 50*time.Millisecond) }()
			grandchild, err := strconv.Atoi(wait())
			if err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := <-done; err == nil {
				t.Fatal("Run returned no error for a killed child")
			}
			// The grandchild is in the group: it must go (a signalled
			// process takes a moment to exit, and is then reaped by init).
			if !gone(grandchild, 10*time.Second) {
				_ = syscall.Kill(grandchild, syscall.SIGKILL)
				t.Fatalf("grandchild %d outlived the group", grandchild)
			}
		})
	}
}

// TestRunWaits: an uncancelled Run returns the child's exit status.
func TestRunWaits(t *testing.T) {
	err := Run(context.Background(), exec.Command("sh", "-c", "exit 3"), time.Second)
	var ee *exec.ExitError
	if !errorsAs(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Run = %v", err)
	}
	if err := Run(context.Background(), exec.Command("/nonexistent/program"), time.Second); err == nil {
		t.Fatal("Run of a missing program succeeded")
	}
}

// gone reports whether pid exits (or is a zombie) within d.
func gone(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(b), ") Z ") {
			return true
		}
	}
	return false
}

func errorsAs(err error, target **exec.ExitError) bool {
	ee, ok := err.(*exec.ExitError)
	if ok {
		*target = ee
	}
	return ok
}

// TestSignalGoneGroup: signalling a group that no longer exists is not an
// error; a non-positive pid is.
func TestSignalGoneGroup(t *testing.T) {
	cmd := exec.Command("true")
	Prepare(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if err := Signal(cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Errorf("Signal(gone) = %v", err)
	}
	if err := Signal(0, syscall.SIGTERM); err == nil {
		t.Error("Signal(0) succeeded")
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestCapped: output past the cap is dropped (the writer still reports it
// written) and marked once.
func TestCapped(t *testing.T) {
	c := &Capped{Max: 5}
	for _, s := range []string{"abc", "defg", "hij"} {
		if n, err := c.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := c.String(); got != "abcde\n[output cut at 5 bytes]\n" {
		t.Errorf("String() = %q", got)
	}
	small := &Capped{Max: 10}
	_, _ = small.Write([]byte("ok"))
	if small.String() != "ok" {
		t.Errorf("String() = %q", small.String())
	}
}
