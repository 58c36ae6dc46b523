package builtintools

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/internal/sandbox"
	"github.com/jpcli/jp/ports"
)

// needSandbox reports whether this kernel can sandbox. Without Landlock
// the test fails, except under CI=true (or off Linux), where it is
// skipped with the reason: the kernel is not the project's to choose.
func needSandbox(t testing.TB) {
	t.Helper()
	if err := sandbox.Status(); err != nil {
		if runtime.GOOS != "linux" || os.Getenv("CI") == "true" {
			t.Skipf("no sandbox on this machine: %v", err)
		}
		t.Fatalf("no sandbox on this machine (CI=true skips): %v", err)
	}
	t.Logf("sandbox available: %s", sandbox.Describe())
}

// shellServer is a server with shell enabled in a checkout under a fake
// HOME (with ~/.ssh/id_rsa), and a directory outside the checkout.
func shellServer(t testing.TB, tool config.Tool) (s *Server, home, outside string) {
	t.Helper()
	base := t.TempDir()
	home, outside = filepath.Join(base, "home"), filepath.Join(base, "outside")
	checkout := filepath.Join(base, "src")
	for _, d := range []string{filepath.Join(home, ".ssh"), outside, checkout} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("-----BEGIN PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, "Makefile"), []byte("test:\n\tmkdir -p out && echo compiled > out/bin && cat out/bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if tb, ok := t.(*testing.T); ok {
		tb.Setenv("HOME", home)
		tb.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
		tb.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	}
	cfg := config.Default()
	cfg.Conversation.Tools.Named[Shell] = tool
	s = New(cfg, checkout)
	t.Cleanup(func() { _ = s.Close() })
	return s, home, outside
}

func runShell(t testing.TB, s *Server, command string) ports.ToolResult {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"command": command})
	r, err := s.Call(context.Background(), Shell, args)
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	return r
}

// TestShellSandboxDenies: in the default sandbox (workspace-write) a
// write outside the checkout, reading ~/.ssh/id_rsa, a TCP connection to
// a local listener and gaining privileges are each denied, and the tool
// result says so; build-like work inside the checkout succeeds.
func TestShellSandboxDenies(t *testing.T) {
	needSandbox(t)
	port := connectedListener(t)
	s, home, outside := shellServer(t, config.Tool{})
	if k := s.ToolKind(Shell); k != ports.ToolKindSandboxedCommand {
		t.Fatalf("ToolKind(shell) = %v, want sandboxed command", k)
	}

	t.Run("write outside the checkout", func(t *testing.T) {
		target := filepath.Join(outside, "escaped")
		r := runShell(t, s, "echo x > "+target)
		if !r.IsError || !strings.Contains(r.Content, "[jp sandbox (workspace-write)") || !strings.Contains(r.Content, "Permission denied") {
			t.Fatalf("result = %+v", r)
		}
		if _, err := os.Stat(target); err == nil {
			t.Fatal("the file outside the checkout exists")
		}
	})
	t.Run("read ~/.ssh/id_rsa", func(t *testing.T) {
		r := runShell(t, s, "cat "+filepath.Join(home, ".ssh", "id_rsa"))
		if !r.IsError || strings.Contains(r.Content, "PRIVATE KEY") || !strings.Contains(r.Content, "~/.ssh") || !strings.Contains(r.Content, "Denied:") {
			t.Fatalf("result = %+v", r)
		}
	})
	t.Run("TCP connection", func(t *testing.T) {
		// bash's /dev/tcp, python or curl: whichever exists.
		cmd := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && cat <&3"
		if _, err := os.Stat("/bin/bash"); err == nil {
			cmd = "bash -c '" + cmd + "'"
		} else {
			cmd = "curl -sS http://127.0.0.1:" + port + "/"
		}
		r := runShell(t, s, cmd)
		if !r.IsError || strings.Contains(r.Content, "CONNECTED") || !strings.Contains(r.Content, "network access") {
			t.Fatalf("result = %+v", r)
		}
	})
	t.Run("no new privileges", func(t *testing.T) {
		// Tests run as root here, so sudo/su would not show it: the
		// kernel's own flag does. A setuid binary gains nothing under it.
		r := runShell(t, s, "grep NoNewPrivs /proc/self/status")
		if r.IsError || !strings.Contains(r.Content, "NoNewPrivs:\t1") {
			t.Fatalf("result = %+v", r)
		}
		if _, err := os.Stat("/usr/bin/sudo"); err == nil {
			r := runShell(t, s, "sudo -n true")
			if !r.IsError {
				t.Fatalf("sudo ran: %+v", r)
			}
		}
	})
	t.Run("build-like work in the checkout", func(t *testing.T) {
		cmd := "make -s test && rm -r out && echo tmp > \"$TMPDIR/x\" && cat \"$TMPDIR/x\""
		r := runShell(t, s, cmd)
		if r.IsError || !strings.Contains(r.Content, "compiled") || !strings.Contains(r.Content, "tmp") {
			t.Fatalf("result = %+v", r)
		}
	})
	t.Run("secrets are not in the environment", func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", "sk-test-secret")
		s2, _, _ := shellServer(t, config.Tool{})
		r := runShell(t, s2, "env")
		if strings.Contains(r.Content, "sk-test-secret") {
			t.Fatalf("the API key reached the command: %s", r.Content)
		}
	})
}

// connectedListener listens on a local port, answering each connection
// with CONNECTED; it stops when the test ends. It returns the port.
func connectedListener(t *testing.T) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("CONNECTED\n"))
			_ = c.Close()
		}
	}()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// TestShellSandboxOff: sandbox = "off" runs the command as it is, and
// the tool is an unsandboxed command (never approved by auto).
func TestShellSandboxOff(t *testing.T) {
	s, _, outside := shellServer(t, config.Tool{Sandbox: config.SandboxLevelOff})
	if k := s.ToolKind(Shell); k != ports.ToolKindCommand {
		t.Fatalf("ToolKind(shell) = %v, want unsandboxed command", k)
	}
	target := filepath.Join(outside, "written")
	if r := runShell(t, s, "echo x > "+target); r.IsError {
		t.Fatalf("result = %+v", r)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatal("sandbox = off did not write")
	}
}

// TestShellSandboxWriteGrant: an access.fs rule with write = true lets
// the sandboxed command write there.
func TestShellSandboxWriteGrant(t *testing.T) {
	needSandbox(t)
	base := t.TempDir()
	grant := filepath.Join(base, "cache")
	if err := os.MkdirAll(grant, 0o755); err != nil {
		t.Fatal(err)
	}
	yes := true
	s, _, _ := shellServer(t, config.Tool{Access: config.Access{FS: []config.FsRule{{Path: grant, Write: &yes}}}})
	if r := runShell(t, s, "echo x > "+filepath.Join(grant, "f")); r.IsError {
		t.Fatalf("result = %+v", r)
	}
}

// BenchmarkShellSandboxed starts `true` through the shell tool in the
// sandbox; compare with BenchmarkShellUnsandboxed (sandbox = "off"): the
// difference is what the sandbox costs a command.
func BenchmarkShellSandboxed(b *testing.B) {
	needSandbox(b)
	// The helper jp installs beside itself (cmd/jp-sandbox), built once.
	helper := filepath.Join(b.TempDir(), sandbox.HelperName)
	if out, err := exec.Command("go", "build", "-o", helper, "github.com/jpcli/jp/cmd/jp-sandbox").CombinedOutput(); err != nil {
		b.Fatalf("build jp-sandbox: %v\n%s", err, out)
	}
	self := sandbox.Self
	sandbox.Self = func() (string, error) { return helper, nil }
	b.Cleanup(func() { sandbox.Self = self })
	s, _, _ := shellServer(b, config.Tool{})
	for b.Loop() {
		if r := runShell(b, s, "true"); r.IsError {
			b.Fatal(r.Content)
		}
	}
}

// BenchmarkShellUnsandboxed is the yardstick of BenchmarkShellSandboxed.
func BenchmarkShellUnsandboxed(b *testing.B) {
	s, _, _ := shellServer(b, config.Tool{Sandbox: config.SandboxLevelOff})
	for b.Loop() {
		if r := runShell(b, s, "true"); r.IsError {
			b.Fatal(r.Content)
		}
	}
}

// TestToolKinds: what --auto may run of each built-in tool. web_fetch
// reaches the network, so it is never a read tool a mode runs.
func TestToolKinds(t *testing.T) {
	cfg := config.Default()
	for _, n := range []string{"fs_read_file", "fs_modify_file", WebFetch, Shell} {
		cfg.Conversation.Tools.Named[n] = config.Tool{}
	}
	s := New(cfg, t.TempDir())
	t.Cleanup(func() { _ = s.Close() })
	for name, want := range map[string]ports.ToolKind{
		"fs_read_file":   ports.ToolKindRead,
		"fs_modify_file": ports.ToolKindEdit,
		WebFetch:         ports.ToolKindOther,
		"not_a_tool":     ports.ToolKindOther,
	} {
		if got := s.ToolKind(name); got != want {
			t.Errorf("ToolKind(%s) = %v, want %v", name, got, want)
		}
	}
}
