package pluginhost_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/ports"
)

// copyExe copies the test binary (which doubles as the test plugin) to
// dir/name: the same plugin at another real path.
func copyExe(t *testing.T, dir, name string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	p := filepath.Join(dir, name)
	dst, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAdmissionBindsToTheBinary: run = "unattended" is granted to the
// binary that first ran under it (its SHA-256 at its real path). Another
// binary declaring the same name, earlier in PATH, is asked about as a
// new plugin: without a terminal it is refused in one line naming both
// paths and how to approve it; answered "no", it does not run; answered
// "yes, remember", it is approved from then on.
func TestAdmissionBindsToTheBinary(t *testing.T) {
	h := newHost(t)
	unattended := []string{`plugins.command.t.run="unattended"`}
	real := copyExe(t, t.TempDir(), "jp-t")
	exe, _ := os.Executable()

	in := h.askInput(unattended, ready, exit0)
	in.Binary.Path, in.Binary.RealPath = real, real
	if err := h.host.Run(t.Context(), in); err != nil {
		t.Fatalf("the first binary under run = unattended: %v", err)
	}
	recs, err := h.catalog.Approvals(t.Context(), "t")
	if err != nil || len(recs) != 1 || recs[0].RealPath != real || recs[0].Via != plugin.ViaUnattended {
		t.Fatalf("binding = %+v, %v", recs, err)
	}
	if err := h.host.Run(t.Context(), in); err != nil {
		t.Fatalf("the bound binary again: %v", err)
	}
	ran := len(h.transcript())

	// Another binary (the test executable, another real path) claims "t".
	h.answerAdmission("", fmt.Errorf("no interactive terminal: %w", ports.ErrUnavailable))
	claim := h.askInput(unattended, ready, exit0)
	err = h.host.Run(t.Context(), claim)
	want := fmt.Sprintf("plugin t (%s) is not the binary approved under that name (%s), and there is no terminal to ask: ", exe, real)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "plugins.command.t.checksum.value = ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Run of the claimant = %v\nwant prefix %s", err, want)
	}
	asked := h.answerAdmission(admitNo, nil)
	if err := h.host.Run(t.Context(), claim); err == nil || !strings.Contains(err.Error(), "was not run") || *asked != 1 {
		t.Fatalf("Run of the claimant answered no = %v (asked %d)", err, *asked)
	}
	if got := len(h.transcript()); got != ran {
		t.Fatalf("the claimant ran: %d transcript lines, want %d", got, ran)
	}

	asked = h.answerAdmission(admitRemember, nil)
	for range 2 {
		if err := h.host.Run(t.Context(), claim); err != nil {
			t.Fatal(err)
		}
	}
	if *asked != 1 {
		t.Fatalf("asked %d times after yes, remember", *asked)
	}
}

const (
	admitNo       = "no"
	admitRemember = "remember"
)
