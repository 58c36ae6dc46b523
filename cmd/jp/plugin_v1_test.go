package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestProtocolV1Plugin runs a shell plugin written for plugin protocol 1
// (testdata/plugins/jp-legacy, sh + jq) as a Rust-jp user has it: no
// manifest file, a describe answer without protocol_version. jp admits
// it, announces version 1 in init, answers lock, push_events and unlock
// in the protocol-1 shapes, answers its prompt (the prompt channel is
// part of the base protocol), and refuses it list_workspaces, which only
// a multi-scope plugin of version 2 can use.
func TestProtocolV1Plugin(t *testing.T) {
	t.Parallel()
	e := newPluginSandbox(t)
	e.install("testdata/plugins/jp-legacy")
	e.jp("", "q", "--new", "first question")

	// No manifest: not trusted yet, so admission asks, and there is no
	// terminal. The user trusts it in the configuration.
	if _, errs, code := e.run("", "legacy"); code != 1 || !strings.Contains(errs, "plugin legacy") || !strings.Contains(errs, "has not been approved") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	e.write(filepath.Join(e.dir, "config", "jp", "config.toml"), "[plugins.command.legacy]\nrun = \"unattended\"\n", 0o644)

	// jp legacy -h asks the plugin to describe itself: its answer has
	// "protocol": 1 and no protocol_version.
	if got := e.jp("", "legacy", "-h"); strings.TrimSpace(got) != "Usage: jp legacy [wait]" {
		t.Fatalf("jp legacy -h printed %q", got)
	}

	out := e.jp("", "legacy")
	want := []string{
		`^init {"version":1,"workspace":true,"config":true}$`,
		`^conversations 1$`,
		`^{"type":"locked","conversation":"\d+"}$`,
		`^{"type":"events_pushed","conversation":"\d+","count":4}$`,
		`^{"type":"error","request":"push_events","message":"events not pushed \(none were stored\): .*chat_request outside a turn.*"}$`,
		`^{"type":"unlocked","conversation":"\d+"}$`,
		`^{"type":"error","request":"push_events","message":"push_events needs the conversation's lock: send lock for conversation \d+ first"}$`,
		`^{"type":"prompt_response","outcome":"unavailable","reason":"no interactive terminal"}$`,
		`^{"type":"error","request":"list_workspaces","message":"list_workspaces needs plugin protocol version 2`,
		`^events \["first question","You said: first question","pushed by a protocol-1 plugin","stored"\]$`,
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("the plugin printed %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Errorf("line %d = %s\nwant match %s", i+1, lines[i], w)
		}
	}
}

// TestPluginExitAfterShutdown: on SIGINT jp sends shutdown; a plugin that
// then exits with code 0 makes jp exit 0 (it stopped cleanly when asked).
func TestPluginExitAfterShutdown(t *testing.T) {
	t.Parallel()
	e := newPluginSandbox(t)
	e.install("testdata/plugins/jp-legacy")
	e.write(filepath.Join(e.dir, "config", "jp", "config.toml"), "[plugins.command.legacy]\nrun = \"unattended\"\n", 0o644)

	cmd := exec.Command(e.exe, "legacy", "wait")
	cmd.Dir, cmd.Env = e.ws, e.env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if sc.Text() == "waiting" {
			// The plugin is up and blocked reading: the readiness signal.
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	if err != nil {
		t.Fatalf("jp exited with %v after the plugin exited 0 on shutdown; stdout %q, stderr %q", err, seen, errb.String())
	}
	if len(seen) < 3 || seen[len(seen)-1] != "then shutdown" {
		t.Fatalf("the plugin did not get shutdown: stdout %q, stderr %q", seen, errb.String())
	}
}
