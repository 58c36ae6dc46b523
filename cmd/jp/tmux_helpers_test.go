package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The TestTmux tests run the real jp binary in a tmux pane: a real
// pseudo-terminal, so SIGINT comes from the line discipline, menus put the
// terminal in raw mode, and the countdown runs because a terminal is
// attached. Each test has its own tmux server (-L), workspace and XDG
// directories, so the tests run in parallel: newTmuxWorld calls
// t.Parallel (a test that already did is left as it is), and every test
// that runs the real binary shares one build of it (buildJPBinary). A
// tmux test must not call t.Setenv or t.Chdir (they forbid t.Parallel):
// give the pane its environment through tmuxWorld.env or paneEnv. Wait on
// the screen (waitFor, waitUntil), never for a fixed time.

// tmuxDeadline bounds every wait on the screen. CI machines are slow; a
// passing run waits far less.
const tmuxDeadline = 20 * time.Second

// requireTmux skips the test when tmux is missing, except on CI (CI=true)
// where a missing tmux is a failure: the tests would silently never run.
func requireTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed; the terminal tests of cmd/jp need it (.ci/install-deps installs it)")
		}
		t.Skip("tmux is not installed")
	}
}

// tmuxWorld is one test's home: a fresh workspace (jp init done) and the
// environment jp runs with.
type tmuxWorld struct {
	t    *testing.T
	jp   string
	base string
	// proj is the workspace checkout jp runs in.
	proj string
	env  []string
	// paneEnv is exported in the pane after the variables it unsets
	// (VISUAL, EDITOR, ...), for a test that needs one of them.
	paneEnv []string
	// width is the pane's width in columns; 0 is 120.
	width int
}

// newTmuxWorld makes the test parallel (see above), makes the directories
// and runs jp init.
func newTmuxWorld(t *testing.T, jp string) *tmuxWorld {
	t.Helper()
	parallel(t)
	base := t.TempDir()
	w := &tmuxWorld{t: t, jp: jp, base: base, proj: filepath.Join(base, "proj")}
	for _, d := range []string{"home", "data", "config", "proj"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = append(isolatedEnv(filepath.Join(base, "home"), filepath.Join(base, "data"), filepath.Join(base, "config")),
		"TERM=xterm-256color", "PATH="+os.Getenv("PATH"))
	w.run("init")
	return w
}

// parallel calls t.Parallel unless the test already did (a second call
// panics before it changes anything, so that panic is recovered).
func parallel(t *testing.T) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil && r != "testing: t.Parallel called multiple times" {
			panic(r)
		}
	}()
	t.Parallel()
}

// file writes name under the world's base directory and returns its path.
func (w *tmuxWorld) file(name, content string) string {
	w.t.Helper()
	p := filepath.Join(w.base, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// run runs jp outside tmux (no terminal) in the checkout and returns its
// stdout.
func (w *tmuxWorld) run(args ...string) string {
	w.t.Helper()
	cmd := exec.Command(w.jp, args...)
	cmd.Dir, cmd.Env = w.proj, w.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("jp %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// tmuxEvent is the part of a stored event the tests look at.
type tmuxEvent struct {
	Type    string `json:"type"`
	Author  string `json:"author"`
	Content string `json:"content"`
	Outcome string `json:"outcome"`
}

// onlyConversation returns the ID of the workspace's one conversation.
func (w *tmuxWorld) onlyConversation() string {
	w.t.Helper()
	var list []struct {
		ID string `json:"id"`
	}
	out := w.run("conversation", "ls", "--format", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		w.t.Fatalf("jp conversation ls --format json: %v\n%s", err, out)
	}
	if len(list) != 1 {
		w.t.Fatalf("want one conversation, jp conversation ls shows %d:\n%s", len(list), out)
	}
	return list[0].ID
}

// events reads the conversation's events from the checkout's projection.
func (w *tmuxWorld) events(id string) []tmuxEvent {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.proj, ".jp", "conversations", id, "events.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	var evs []tmuxEvent
	if err := json.Unmarshal(b, &evs); err != nil {
		w.t.Fatalf("events.json: %v\n%s", err, b)
	}
	return evs
}

// draftExists reports whether the conversation has a QUERY_MESSAGE.md in
// its silo.
func (w *tmuxWorld) draftExists(id string) bool {
	w.t.Helper()
	m, err := filepath.Glob(filepath.Join(w.base, "data", "jp", "workspace", "*", "conversations", id, "QUERY_MESSAGE.md"))
	if err != nil {
		w.t.Fatal(err)
	}
	return len(m) > 0
}

// draftText is conversation id's QUERY_MESSAGE.md in the user-local
// store, "" when there is none.
func (w *tmuxWorld) draftText(id string) string {
	w.t.Helper()
	m, err := filepath.Glob(filepath.Join(w.base, "data", "jp", "workspace", "*", "conversations", id, "QUERY_MESSAGE.md"))
	if err != nil || len(m) == 0 {
		return ""
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

// chatRequests renders the conversation's chat requests as
// "author:content", in order.
func chatRequests(evs []tmuxEvent) []string {
	var out []string
	for _, e := range evs {
		if e.Type == "chat_request" {
			out = append(out, e.Author+":"+e.Content)
		}
	}
	return out
}

// tmuxPane is one command running in a tmux session of its own server.
// For startJP the pane runs a small sh script: jp, then its exit code and
// `stty -a` of the same terminal, each written to a file and printed.
type tmuxPane struct {
	t *testing.T
	// server selects the private tmux server: -L NAME or -S PATH.
	server []string
	// session is the tmux session (and target) the command runs in.
	session string
	dir     string
	// out is the file tmux copies the pane's output to from the start
	// (pipe-pane), "" when there is none: waitUntil reads the screen
	// again only when it grew (see there).
	out string
}

var tmuxSockets atomic.Int64

// startJP runs jp with args in a new 120x40 tmux session on a private
// server.
func (w *tmuxWorld) startJP(args ...string) *tmuxPane {
	w.t.Helper()
	cols := 120
	if w.width > 0 {
		cols = w.width
	}
	return w.startJPSize(cols, 40, args...)
}

// startJPSize is startJP in a pane of cols x rows.
func (w *tmuxWorld) startJPSize(cols, rows int, args ...string) *tmuxPane {
	w.t.Helper()
	requireTmux(w.t)
	dir := filepath.Join(w.base, "pane")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	n := tmuxSockets.Add(1)
	p := &tmuxPane{
		t:       w.t,
		server:  []string{"-L", fmt.Sprintf("jp-test-%d-%d", os.Getpid(), n)},
		session: "jp",
		dir:     dir,
		out:     filepath.Join(dir, fmt.Sprintf("pane-%d.out", n)),
	}
	var s strings.Builder
	s.WriteString("# A trapped SIGINT: a Ctrl-C that lands after jp exited must not\n")
	s.WriteString("# stop this script before it reports.\ntrap : INT\n")
	for _, e := range w.env {
		s.WriteString("export " + shQuote(e) + "\n")
	}
	s.WriteString("unset JP_HEADLESS VISUAL EDITOR NO_COLOR TMUX\n")
	for _, e := range w.paneEnv {
		s.WriteString("export " + shQuote(e) + "\n")
	}
	s.WriteString("cd " + shQuote(w.proj) + " || exit 1\n")
	s.WriteString(shQuote(w.jp))
	for _, a := range args {
		s.WriteString(" " + shQuote(a))
	}
	s.WriteString("\ncode=$?\n")
	s.WriteString("stty -a > " + shQuote(filepath.Join(dir, "stty.txt")) + " 2>&1\n")
	s.WriteString("echo \"$code\" > " + shQuote(filepath.Join(dir, "exit.txt")) + "\n")
	s.WriteString("echo \"EXIT=$code\"\n")
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte(s.String()), 0o755); err != nil {
		w.t.Fatal(err)
	}
	// The server gets a clean environment of its own; the script sets
	// what jp sees.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(w.base, "home"), "TERM=xterm-256color"}
	if tmp := os.Getenv("TMUX_TMPDIR"); tmp != "" {
		env = append(env, "TMUX_TMPDIR="+tmp)
	}
	p.tmux(env, "-f", "/dev/null", "new-session", "-d", "-s", p.session, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows),
		"sh "+shQuote(script),
		";", "pipe-pane", "-t", p.session, "cat >> "+shQuote(p.out),
		";", "set-option", "-t", p.session, "remain-on-exit", "on")
	var sockPath string
	w.t.Cleanup(func() {
		p.kill()
		// The server does not always remove its socket when it is killed.
		if sockPath != "" {
			_ = os.Remove(sockPath)
		}
	})
	sockPath = strings.TrimSpace(p.tmux(nil, "display-message", "-p", "-t", p.session, "#{socket_path}"))
	return p
}

func (p *tmuxPane) tmux(env []string, args ...string) string {
	p.t.Helper()
	cmd := exec.Command("tmux", append(slices.Clone(p.server), args...)...)
	if env != nil {
		cmd.Env = env
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// kill stops the pane's tmux server; it is for cleanups, so it reports
// nothing.
func (p *tmuxPane) kill() {
	_ = exec.Command("tmux", append(slices.Clone(p.server), "kill-server")...).Run()
}

// screen is what the pane shows, wrapped lines joined.
func (p *tmuxPane) screen() string {
	return p.tmux(nil, "capture-pane", "-p", "-J", "-t", p.session)
}

// waitUntil polls until ok holds on the screen, and returns that screen.
// A capture is a tmux client process (milliseconds of CPU, tens of them
// on a busy machine, and dozens of tmux tests poll at once), so the
// screen is read again only when the pane's output file grew (a stat),
// or a second after the last read (a resize reflows the screen with no
// output); ok is checked every tick, for conditions that read files.
func (p *tmuxPane) waitUntil(what string, ok func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(tmuxDeadline)
	var scr string
	seen, read := int64(-1), time.Time{}
	for {
		if n := p.outputSize(); n < 0 || n != seen || time.Since(read) >= time.Second {
			// The size is taken before the capture: output after it
			// changes the size again, and so the next tick reads again.
			seen, read, scr = n, time.Now(), p.screen()
		}
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("after %s the screen never showed %s; it shows:\n%s", tmuxDeadline, what, p.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// outputSize is the size of the pane's output file, -1 when the pane has
// none (every tick reads the screen).
func (p *tmuxPane) outputSize() int64 {
	if p.out == "" {
		return -1
	}
	fi, err := os.Stat(p.out)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// waitFor polls the screen until it contains s.
func (p *tmuxPane) waitFor(s string) string {
	p.t.Helper()
	return p.waitUntil(strconv.Quote(s), func(scr string) bool { return strings.Contains(scr, s) })
}

// waitForAfter polls the screen until s appears after the last occurrence
// of marker.
func (p *tmuxPane) waitForAfter(marker, s string) string {
	p.t.Helper()
	return p.waitUntil(fmt.Sprintf("%q after %q", s, marker), func(scr string) bool {
		after, ok := afterLast(scr, marker)
		return ok && strings.Contains(after, s)
	})
}

// afterLast returns what follows the last occurrence of marker in s.
func afterLast(s, marker string) (string, bool) {
	i := strings.LastIndex(s, marker)
	if i < 0 {
		return "", false
	}
	return s[i+len(marker):], true
}

// keys sends tmux key names (q, Enter, C-c, C-u).
func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	p.tmux(nil, append([]string{"send-keys", "-t", p.session}, keys...)...)
}

// literal types text as it is.
func (p *tmuxPane) literal(s string) {
	p.t.Helper()
	p.tmux(nil, "send-keys", "-t", p.session, "-l", s)
}

// exitCode waits for jp to exit and returns its exit code.
func (p *tmuxPane) exitCode() int {
	p.t.Helper()
	p.waitUntil("EXIT=<code>", func(scr string) bool {
		_, err := os.Stat(filepath.Join(p.dir, "stty.txt"))
		return err == nil && strings.Contains(scr, "EXIT=")
	})
	b, err := os.ReadFile(filepath.Join(p.dir, "exit.txt"))
	if err != nil {
		p.t.Fatal(err)
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		p.t.Fatalf("exit code %q: %v", b, err)
	}
	return code
}

// checkTerminalRestored fails unless `stty -a`, run in the pane right after
// jp exited, shows the terminal back in canonical mode with echo (and
// signals and output processing) on.
func (p *tmuxPane) checkTerminalRestored() {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, "stty.txt"))
	if err != nil {
		p.t.Fatal(err)
	}
	flags := map[string]bool{}
	for _, f := range strings.FieldsFunc(string(b), func(c rune) bool { return c == ' ' || c == '\n' || c == ';' }) {
		flags[f] = true
	}
	for _, want := range []string{"icanon", "echo", "isig", "opost"} {
		if !flags[want] || flags["-"+want] {
			p.t.Errorf("terminal not restored after jp exited: %q is off in stty -a:\n%s", want, b)
		}
	}
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// resize sets the pane's window to width columns (40 rows).
func (p *tmuxPane) resize(width int) {
	p.t.Helper()
	p.tmux(nil, "resize-window", "-t", p.session, "-x", fmt.Sprint(width), "-y", "40")
}
