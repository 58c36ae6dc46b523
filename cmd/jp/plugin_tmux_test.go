package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The plugin prompt channel in a real terminal: jp runs in a tmux pane,
// the plugin (this test binary as jp-tprompt, see plugin_helpers_test.go)
// asks through it, and records what reached it.

// pluginPane is jp with the prompt plugin in a tmux pane (tmuxPane's
// screen, keys and waits), and the files the run reports in.
type pluginPane struct {
	*tmuxPane
	result string
	status string
}

// startPluginPrompts runs `jp -vvv tprompt KIND...` in a new tmux pane.
func startPluginPrompts(t *testing.T, e *pluginSandbox, kinds ...string) *pluginPane {
	t.Helper()
	p := &pluginPane{
		tmuxPane: &tmuxPane{t: t, server: []string{"-S", filepath.Join(e.dir, "tmux.sock")}, session: "t"},
		result:   filepath.Join(e.dir, "result.jsonl"),
		status:   filepath.Join(e.dir, "status"),
	}
	var cmd strings.Builder
	cmd.WriteString("cd " + shQuote(e.ws) + " && env")
	for _, kv := range append(e.env, "JP_TEST_RESULT="+p.result, "TERM=xterm-256color") {
		cmd.WriteString(" " + shQuote(kv))
	}
	cmd.WriteString(" " + shQuote(e.exe) + " -vvv tprompt " + strings.Join(kinds, " "))
	cmd.WriteString("; echo $? > " + shQuote(p.status) + "; sleep 600")
	p.tmux(nil, "-f", "/dev/null", "new-session", "-d", "-s", p.session, "-x", "120", "-y", "30", "sh", "-c", cmd.String())
	t.Cleanup(p.kill)
	return p
}

// exit waits for jp to end and returns its exit status and what the
// plugin recorded.
func (p *pluginPane) exit() (string, []pluginPromptResult) {
	p.t.Helper()
	deadline := time.Now().Add(tmuxDeadline)
	for {
		b, err := os.ReadFile(p.status)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			var rs []pluginPromptResult
			data, _ := os.ReadFile(p.result)
			for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				var r pluginPromptResult
				if l != "" {
					if err := json.Unmarshal([]byte(l), &r); err != nil {
						p.t.Fatalf("bad result line %q", l)
					}
					rs = append(rs, r)
				}
			}
			return strings.TrimSpace(string(b)), rs
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("jp never exited; the screen shows:\n%s", p.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func newPromptSandbox(t *testing.T) *pluginSandbox {
	requireTmux(t)
	e := newPluginSandbox(t)
	e.write(filepath.Join(e.bin, "jp-tprompt"), "#!/bin/sh\nJP_TEST_PLUGIN=prompt exec "+shQuote(e.exe)+" \"$@\"\n", 0o755)
	e.write(filepath.Join(e.bin, "jp-tprompt.manifest.json"),
		`{"name":"tprompt","version":"0.1.0","description":"Asks questions","command":["tprompt"],"protocol_version":2}`, 0o644)
	return e
}

func TestPluginPromptsInTmux(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		kinds  []string
		keys   func(p *pluginPane)
		status string
		want   []pluginPromptResult
	}{
		{"confirm y answers true", []string{"confirm"}, func(p *pluginPane) {
			p.waitFor("┃ Delete 14 stale entries?")
			p.keys("y")
		}, "0", []pluginPromptResult{{Kind: "confirm", Outcome: "answered", Value: true}}},
		{"ESC cancels", []string{"confirm"}, func(p *pluginPane) {
			p.waitFor("┃ Delete 14 stale entries?")
			p.keys("Escape")
		}, "0", []pluginPromptResult{{Kind: "confirm", Outcome: "cancelled"}}},
		{"select and text round-trip", []string{"select", "text"}, func(p *pluginPane) {
			p.waitFor("┃ Which branch?")
			p.keys("Down", "Enter")
			p.waitFor("┃ Commit message")
			p.literal("fix the bug")
			p.keys("Enter")
		}, "0", []pluginPromptResult{{Kind: "select", Outcome: "answered", Value: "develop"}, {Kind: "text", Outcome: "answered", Value: "fix the bug"}}},
		{"Ctrl-C escalates to shutdown", []string{"confirm"}, func(p *pluginPane) {
			p.waitFor("┃ Delete 14 stale entries?")
			p.keys("C-c")
		}, "130", []pluginPromptResult{{Kind: "confirm", Shutdown: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newPromptSandbox(t)
			p := startPluginPrompts(t, e, tt.kinds...)
			tt.keys(p)
			status, got := p.exit()
			if status != tt.status || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("exit %s, the plugin saw %+v; want exit %s and %+v\nscreen:\n%s", status, got, tt.status, tt.want, p.screen())
			}
		})
	}
}

// TestPluginSecretInTmux: a secret prompt does not echo, not even as a
// mask that grows with each key, and its value is absent from the log
// file written at the highest verbosity.
func TestPluginSecretInTmux(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-SECRET-f00d"
	e := newPromptSandbox(t)
	p := startPluginPrompts(t, e, "secret")
	p.waitFor("┃ Registry token") // the prompt, not the -vvv trace of the request
	before := p.waitFor("(typing is hidden)")
	// Everything jp writes to the terminal from here on is recorded.
	rec := filepath.Join(e.dir, "typed.out")
	p.tmux(nil, "pipe-pane", "-t", p.session, "-o", "cat >> "+shQuote(rec))
	p.literal(secret)
	p.keys("Enter")
	status, got := p.exit()
	if status != "0" || len(got) != 1 || got[0].Outcome != "answered" || got[0].Value != fmt.Sprintf("%d characters", len(secret)) {
		t.Fatalf("exit %s, the plugin saw %+v\n%s", status, got, p.screen())
	}
	if b, _ := os.ReadFile(p.result + ".secret"); string(b) != secret {
		t.Fatalf("the plugin got %q, want the typed secret", b)
	}
	if strings.Contains(before, secret) || strings.Contains(p.screen(), secret) {
		t.Fatalf("the secret was echoed:\n%s\n---\n%s", before, p.screen())
	}
	typed, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("nothing was recorded while the secret was typed: %v", err)
	}
	if strings.Contains(string(typed), secret) || strings.Contains(string(typed), "***") {
		t.Fatalf("typing the secret showed it, or a mask as long as it; the terminal received:\n%q", typed)
	}
	log, err := os.ReadFile(filepath.Join(e.data, "logs", "jp.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), secret) {
		t.Fatalf("the secret is in the log file:\n%s", log)
	}
	for _, want := range []string{`\"type\":\"prompt\"`, `\"kind\":\"secret\"`, `\"type\":\"prompt_response\"`, `[redacted]`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the -vvv log lacks %s (is the message trace on?):\n%s", want, log)
		}
	}
}
