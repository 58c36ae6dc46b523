package main

import (
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFormatVersionPrefersTheStampedCommit(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "8bee1f0c0ffee1234567890abcdef0123456789a"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name, stamped string
		settings      []debug.BuildSetting
		want          string
	}{
		{"stamped only", "062f23fdc2e1", nil, "commit 062f23fdc2e1,"},
		{"stamped wins over another revision", "062f23fdc2e1", rev, "commit 062f23fdc2e1,"},
		{"stamped, the toolchain agrees and saw changes", "8bee1f0c0ffe", rev, "commit 8bee1f0c0ffe, modified,"},
		{"the toolchain's revision when nothing is stamped", "", rev, "commit 8bee1f0c0ffe, modified,"},
		{"neither", "", nil, "commit unknown,"},
		{"neither, only a modified flag", "", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, "commit unknown,"},
	} {
		got := formatVersion("0.1.0", tc.stamped, tc.settings, "go1.26.8", "linux/amd64")
		if !strings.HasPrefix(got, "jp 0.1.0 (") || !strings.Contains(got, tc.want) || !strings.HasSuffix(got, " go1.26.8 linux/amd64)") {
			t.Errorf("%s: %q, want it to hold %q", tc.name, got, tc.want)
		}
	}
}

// TestMakefileStampsTheCommit: make build, install and demo pass the
// checkout's commit to the linker, so jp version names it.
func TestMakefileStampsTheCommit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	head, err := exec.Command("git", "-C", "../..", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	want := "-X main.Commit=" + strings.TrimSpace(string(head))
	for _, target := range []string{"build", "install", "demo"} {
		cmd := exec.Command("make", "-n", target)
		cmd.Dir = "../.."
		cmd.Env = withoutVar(os.Environ(), "COMMIT")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, out)
		}
		if !regexp.MustCompile(`go (build|install) .*-ldflags "[^"]*` + regexp.QuoteMeta(want) + `[ "]`).Match(out) {
			t.Errorf("make -n %s does not pass %q to the linker:\n%s", target, want, out)
		}
	}
}

func withoutVar(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
