package terminal

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pane is a tmux session running one helper scenario in a real
// pseudo-terminal, on a private tmux server.
type pane struct {
	t      *testing.T
	sock   string
	result string
}

const paneDeadline = 15 * time.Second

// startPane runs scenario in a new 120x30 tmux session.
func startPane(t *testing.T, scenario string, env ...string) *pane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed (needed for the terminal prompt tests; .ci/install-deps installs it)")
		}
		t.Skip("tmux is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := &pane{t: t, sock: filepath.Join(dir, "tmux.sock"), result: filepath.Join(dir, "result.json")}
	env = append(env, helperEnv+"="+scenario, resultEnv+"="+p.result, "TMPDIR="+dir)
	var cmd strings.Builder
	cmd.WriteString("exec env")
	for _, e := range env {
		cmd.WriteString(" " + shellQuote(e))
	}
	cmd.WriteString(" " + shellQuote(exe) + " -test.run=^$")
	p.tmux("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "120", "-y", "30", cmd.String(),
		";", "set-option", "-t", "t", "remain-on-exit", "on")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", p.sock, "kill-server").Run() })
	return p
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen returns what the pane shows.
func (p *pane) screen() string { return p.tmux("capture-pane", "-p", "-t", "t") }

// waitFor polls the screen until it contains s.
func (p *pane) waitFor(s string) {
	p.t.Helper()
	deadline := time.Now().Add(paneDeadline)
	for {
		scr := p.screen()
		if strings.Contains(scr, s) {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("screen never showed %q; it shows:\n%s", s, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// record starts copying everything the pane's program writes to the
// terminal into a file (tmux pipe-pane), read back with recorded.
func (p *pane) record() {
	p.tmux("pipe-pane", "-t", "t", "-o", "cat >> "+shellQuote(p.result+".out"))
}

// recorded returns what the pane's program wrote since record; ok is
// false when record was not called.
func (p *pane) recorded() (string, bool) {
	b, err := os.ReadFile(p.result + ".out")
	if err != nil {
		return "", false
	}
	return string(b), true
}

// keys sends tmux key names (y, Enter, Escape, C-c, M-Enter).
func (p *pane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", "t"}, keys...)...) }

// literal types text as is.
func (p *pane) literal(s string) { p.tmux("send-keys", "-t", "t", "-l", s) }

// wait returns the helper's result.
func (p *pane) wait() helperResult {
	p.t.Helper()
	deadline := time.Now().Add(paneDeadline)
	for {
		b, err := os.ReadFile(p.result)
		if err == nil {
			var r helperResult
			if err := json.Unmarshal(b, &r); err != nil {
				p.t.Fatalf("bad result %q: %v", b, err)
			}
			return r
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the prompt never returned; the screen shows:\n%s", p.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkRestored fails unless the terminal is back in canonical mode with
// echo on.
func checkRestored(t *testing.T, r helperResult) {
	t.Helper()
	flags := map[string]bool{}
	for _, f := range strings.FieldsFunc(r.Stty, func(c rune) bool { return c == ' ' || c == '\n' || c == ';' }) {
		flags[f] = true
	}
	for _, want := range []string{"icanon", "echo", "isig", "opost"} {
		if !flags[want] {
			t.Errorf("terminal not restored: %q is off in stty -a:\n%s", want, r.Stty)
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestPrompterInTmux(t *testing.T) {
	type step func(p *pane)
	tests := []struct {
		name     string
		scenario string
		env      []string
		steps    []step
		want     helperResult
		restored bool
	}{
		{name: "confirm y", scenario: "confirm", want: helperResult{Bool: true},
			steps: []step{func(p *pane) { p.waitFor("Delete 14 stale entries?"); p.keys("y") }}},
		{name: "confirm ESC cancels", scenario: "confirm", want: helperResult{Err: "cancelled"},
			steps: []step{func(p *pane) { p.waitFor("Delete 14 stale entries?"); p.keys("Escape") }}},
		{name: "permission key Y", scenario: "permission", want: helperResult{Text: "Y"}, restored: true,
			steps: []step{func(p *pane) {
				p.waitFor("[Y] run, remember for this run")
				p.keys("Up", "x", "Y")
				p.waitFor("› run, remember for this run")
			}}},
		{name: "permission key n", scenario: "permission", want: helperResult{Text: "n"},
			steps: []step{func(p *pane) { p.waitFor("[N] skip"); p.keys("n") }}},
		{name: "permission ESC cancels", scenario: "permission", want: helperResult{Err: "cancelled"}, restored: true,
			steps: []step{func(p *pane) { p.waitFor("[N] skip"); p.keys("Escape") }}},
		{name: "permission Ctrl-C interrupts", scenario: "permission", want: helperResult{Err: "interrupted"}, restored: true,
			steps: []step{func(p *pane) { p.waitFor("[N] skip"); p.keys("C-c") }}},
		{name: "write permission shows invisible characters escaped", scenario: "write-permission", want: helperResult{Text: "n"},
			steps: []step{func(p *pane) {
				p.waitFor("+++ b/evil<U+202E>gnp.sh")
				p.waitFor("+echo hi<U+200B>")
				p.waitFor("Run tool fs_create_file: create evil<U+202E>gnp.sh (1 lines)?")
				p.waitFor("[N] skip")
				if scr := p.screen(); strings.ContainsAny(scr, "\u202e\u200b") {
					p.t.Errorf("the screen holds a raw format character:\n%q", scr)
				}
				p.keys("n")
			}}},
		{name: "select", scenario: "select", want: helperResult{Text: "develop"},
			steps: []step{func(p *pane) { p.waitFor("release"); p.keys("Down", "Enter") }}},
		{name: "text", scenario: "text", want: helperResult{Text: "fix: the parser"}, restored: true,
			steps: []step{func(p *pane) {
				p.waitFor("Commit message")
				p.literal("fix: the parser")
				p.waitFor("fix: the parser")
				p.keys("Enter")
			}}},
		{name: "text Ctrl-C interrupts", scenario: "text", want: helperResult{Err: "interrupted"}, restored: true,
			steps: []step{func(p *pane) { p.waitFor("Commit message"); p.literal("abc"); p.keys("C-c") }}},
		{name: "secret", scenario: "secret", want: helperResult{Text: "hunter2-token"},
			steps: []step{func(p *pane) {
				p.waitFor("Registry token")
				// Record every byte jp writes to the terminal while the
				// secret is typed: no echo, and no mask that grows with it.
				p.record()
				p.literal("hunter2-token")
				p.keys("Enter")
			}}},
		{name: "compose multi-line", scenario: "compose", want: helperResult{Text: "line one\nline two\nline three"},
			steps: []step{func(p *pane) {
				p.waitFor("Reply")
				p.literal("line one")
				p.keys("C-j")
				p.literal("line two")
				p.keys("M-Enter")
				p.literal("line three")
				p.waitFor("line three")
				p.keys("Enter")
			}}},
		{name: "compose ESC cancels, returning what was typed", scenario: "compose-seeded", want: helperResult{Text: "seeded text, more", Err: "cancelled"},
			steps: []step{func(p *pane) {
				p.waitFor("seeded text")
				p.keys("End")
				p.literal(", more")
				p.waitFor("seeded text, more")
				p.keys("Escape")
			}}},
		{name: "compose emptied", scenario: "compose-seeded", want: helperResult{Text: ""},
			steps: []step{func(p *pane) {
				p.waitFor("seeded text")
				p.keys("C-u")
				p.keys("Enter")
			}}},
		{name: "compose Ctrl+X to editor", scenario: "compose-seeded", want: helperResult{Text: "seeded text, edited\n"},
			env:   []string{editorEnv + "=" + "sh " + writeEditor(t)},
			steps: []step{func(p *pane) { p.waitFor("seeded text"); p.keys("End", "C-x") }}},
		{name: "compose editor failure keeps the text", scenario: "compose-seeded", want: helperResult{Text: "seeded text!"},
			env: []string{editorEnv + "=" + "sh " + writeFailingEditor(t)},
			steps: []step{func(p *pane) {
				p.waitFor("seeded text")
				p.keys("C-x")
				p.waitFor("exited with status 1")
				p.keys("End")
				p.literal("!")
				p.waitFor("seeded text!")
				p.keys("Enter")
			}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startPane(t, tt.scenario, tt.env...)
			for _, s := range tt.steps {
				s(p)
			}
			got := p.wait()
			if got.Err != tt.want.Err || got.Text != tt.want.Text || got.Bool != tt.want.Bool {
				t.Errorf("result = %+v, want %+v; the screen shows:\n%s", got, tt.want, p.screen())
			}
			if tt.restored || got.Err != "" {
				checkRestored(t, got)
			}
			if strings.Contains(p.screen(), "hunter2") {
				t.Errorf("a secret is left on the screen:\n%s", p.screen())
			}
			out, ok := p.recorded()
			if tt.scenario == "secret" && !ok {
				t.Errorf("nothing was recorded while the secret was typed")
			}
			if ok && (strings.Contains(out, "hunter2") || strings.Contains(out, "*")) {
				t.Errorf("typing the secret showed it or a growing mask; the terminal received:\n%q", out)
			}
		})
	}
}

// writeEditor writes a fake editor that appends ", edited" to the file.
func writeEditor(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "editor.sh")
	script := "#!/bin/sh\nprintf '%s, edited\\n' \"$(cat \"$1\")\" > \"$1\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeFailingEditor writes an editor that exits 1, like vim's :cq.
func writeFailingEditor(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "fail.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
