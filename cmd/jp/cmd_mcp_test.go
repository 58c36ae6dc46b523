package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mcpBin is where .ci/install-deps installs the npm MCP servers the
// testdata/script/mcp_*.txtar scenarios run (adapters/mcp/testdata).
const mcpBin = "../../adapters/mcp/testdata/node_modules/.bin"

// init puts the installed MCP test servers on the test process's PATH,
// which testscript hands to every script: the mcp_*.txtar configurations
// name the servers by program name, as a user's would. Without them the
// scripts skip themselves (TestMCPServersInstalled says why).
func init() {
	bin, err := filepath.Abs(mcpBin)
	if err != nil {
		return
	}
	if _, err := os.Stat(filepath.Join(bin, "mcp-server-everything")); err == nil {
		_ = os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
}

// TestMCPServersInstalled fails under CI=true when the MCP test servers
// are missing, so that the mcp_*.txtar scenarios cannot skip silently.
func TestMCPServersInstalled(t *testing.T) {
	for _, s := range []string{"mcp-server-everything", "mcp-server-filesystem"} {
		if _, err := os.Stat(filepath.Join(mcpBin, s)); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (run .ci/install-deps): %v", s, err)
			}
			t.Skipf("%s is not installed; run .ci/install-deps to run the MCP scenarios", s)
		}
	}
}

// TestMCPServersStopWhenJPIsInterrupted interrupts jp (Ctrl-C, and SIGTERM
// as a graceful shutdown) while an MCP tool runs: jp must stop the server
// before it exits.
func TestMCPServersStopWhenJPIsInterrupted(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(mcpBin, "mcp-server-everything")); err != nil {
		t.Skip("mcp-server-everything is not installed; run .ci/install-deps")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			e := newJPEnv(t)
			e.run("init")
			tmp := t.TempDir()
			pidFile, sent := filepath.Join(tmp, "server.pid"), filepath.Join(tmp, "sent.jsonl")
			// The shell records its pid (the server's process group) and
			// tees what jp sends, so the test knows when the call is there.
			e.write(".jp/config.toml", fmt.Sprintf("[mcp.servers.everything]\ncommand = [\"sh\", \"-c\", \"echo $$ > %s; tee %s | mcp-server-everything\"]\n", pidFile, sent))
			e.write("script.json", `{"responses": [
  {"events": [{"tool_call": {"name": "everything__trigger-long-running-operation", "arguments": {"duration": 60, "steps": 60}}}]},
  {"events": [{"text": "done"}]}]}`)
			cmd := e.command(context.Background(), "q", "--new", "--cfg", "providers.demo.script="+filepath.Join(e.dir, "script.json"),
				"--cfg", "conversation.tools.defaults.run=unattended", "--cfg", "interrupt.tool_call.action=stop", "wait")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := waitForPID(t, pidFile)
			waitForText(t, sent, `"method":"tools/call"`)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("jp did not exit after %s:\n%s", sig, out.String())
			}
			if syscall.Kill(pid, 0) == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the MCP server (pid %d) outlived jp after %s:\n%s", pid, sig, out.String())
			}
		})
	}
}

// waitForText waits until the file at path holds text.
func waitForText(t *testing.T, path, text string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), text) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never held %s", path, text)
}

// waitForPID waits for a server to write its process ID to path.
func waitForPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err == nil {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return 0
}
