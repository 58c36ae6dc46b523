package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// Session mode in a real terminal (docs/session.md), at 80 and 120
// columns: each subtest runs jp chat in a tmux server of its own.

var sessionWidths = []int{80, 120}

// eachWidth runs f at 80 and 120 columns, in parallel, each in a fresh
// world.
func eachWidth(t *testing.T, f func(t *testing.T, w *tmuxWorld, start func(args ...string) *tmuxPane)) {
	parallel(t)
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	for _, width := range sessionWidths {
		t.Run(fmt.Sprintf("%dcols", width), func(t *testing.T) {
			t.Parallel()
			w := newTmuxWorld(t, jp)
			f(t, w, func(args ...string) *tmuxPane {
				p := w.startJP(args...)
				p.resize(width)
				return p
			})
		})
	}
}

// send types a message and Enter.
func (p *tmuxPane) send(text string) {
	p.t.Helper()
	p.literal(text)
	p.waitFor("│ " + text)
	p.keys("Enter")
}

func TestTmuxSessionThreeTurns(t *testing.T) {
	eachWidth(t, func(t *testing.T, w *tmuxWorld, start func(...string) *tmuxPane) {
		p := start("chat", "--new")
		p.waitFor("new conversation · demo/echo")
		p.send("first message")
		p.waitFor("You said: first message")
		// The composer opens again, its header naming the conversation.
		p.waitForAfter("You said: first message", "· demo/echo · ctx ")
		p.send("second message")
		p.waitFor("You said: second message")
		p.waitForAfter("You said: second message", "ctrl+d: end")
		p.send("third message")
		p.waitFor("You said: third message")
		p.waitForAfter("You said: third message", "ctrl+d: end")
		p.keys("C-d")
		if code := p.exitCode(); code != 0 {
			t.Fatalf("jp chat exited %d after Ctrl-D; the screen shows:\n%s", code, p.screen())
		}
		p.checkTerminalRestored()
		id := w.onlyConversation()
		want := []string{"user:first message", "user:second message", "user:third message"}
		if got := chatRequests(w.events(id)); !slices.Equal(got, want) {
			t.Fatalf("chat requests = %q, want %q (each turn recorded as jp q records it)", got, want)
		}
		if w.draftExists(id) {
			t.Errorf("a draft is left after every message was sent: %q", w.draftText(id))
		}
		if n := strings.Count(p.history(), "Using demo/echo"); n != 1 {
			t.Errorf("the demo hint was shown %d times, want once per session", n)
		}
	})
}

func TestTmuxSessionHistoryRecall(t *testing.T) {
	eachWidth(t, func(t *testing.T, w *tmuxWorld, start func(...string) *tmuxPane) {
		w.run("q", "--new", "an earlier question")
		id := w.onlyConversation()
		p := start("chat")
		p.waitFor("ctrl+d: end")
		// Up recalls the conversation's earlier message.
		p.keys("Up")
		p.waitFor("│ an earlier question")
		p.keys("C-u")
		p.send("a session message")
		p.waitFor("You said: a session message")
		p.waitForAfter("You said: a session message", "ctrl+d: end")
		// Up again: the newest first, then the older one; Down comes back.
		p.keys("Up")
		p.waitForAfter("You said: a session message", "│ a session message")
		p.keys("Up")
		p.waitForAfter("You said: a session message", "│ an earlier question")
		p.keys("Down", "Down")
		p.waitUntil("an empty composer", func(scr string) bool {
			after, _ := afterLast(scr, "You said: a session message")
			return !strings.Contains(after, "│ a session") && !strings.Contains(after, "│ an earlier")
		})
		p.keys("C-d")
		if code := p.exitCode(); code != 0 {
			t.Fatalf("exit %d:\n%s", code, p.screen())
		}
		if got := chatRequests(w.events(id)); len(got) != 2 {
			t.Fatalf("chat requests = %q, want the earlier one and the session's", got)
		}
		// The session's message is in the user's history file, 0600.
		hist := filepath.Join(w.base, "data", "jp", "history.jsonl")
		fi, err := os.Stat(hist)
		if err != nil {
			t.Fatalf("history file: %v", err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("history file mode %v, want 0600", fi.Mode().Perm())
		}
		if b, _ := os.ReadFile(hist); !strings.Contains(string(b), "a session message") {
			t.Errorf("history file lacks the message:\n%s", b)
		}
	})
}

func TestTmuxSessionModelAndFork(t *testing.T) {
	eachWidth(t, func(t *testing.T, w *tmuxWorld, start func(...string) *tmuxPane) {
		p := start("chat", "--new")
		p.waitFor("ctrl+d: end")
		p.send("before the fork")
		p.waitFor("You said: before the fork")
		p.waitForAfter("You said: before the fork", "ctrl+d: end")
		// "/mo" and Tab complete /model.
		p.literal("/mo")
		p.waitFor("› /model")
		p.keys("Tab")
		p.literal("demo/echo")
		p.waitFor("│ /model demo/echo")
		p.keys("Enter")
		p.waitFor("Model: demo/echo (recorded in the conversation")
		p.send("/fork")
		scr := p.waitFor("the session goes on in the fork")
		var orig, fork string
		if _, err := fmt.Sscanf(scr[strings.Index(scr, "Forked "):], "Forked %s into %s", &orig, &fork); err != nil {
			t.Fatalf("no fork line: %v\n%s", err, scr)
		}
		fork = strings.TrimSuffix(fork, ":")
		// The header names the fork by its short ID: a prefix of the fork's
		// ID that is not one of the original's.
		header := regexp.MustCompile(`· ([0-9]{4,}) · demo/echo`)
		p.waitUntil("the fork's short ID in the header", func(scr string) bool {
			after, ok := afterLast(scr, "the session goes on in the fork")
			m := header.FindStringSubmatch(after)
			return ok && m != nil && strings.HasPrefix(fork, m[1]) && !strings.HasPrefix(orig, m[1])
		})
		p.send("after the fork")
		p.waitFor("You said: after the fork")
		p.waitForAfter("You said: after the fork", "ctrl+d: end")
		p.keys("C-d")
		if code := p.exitCode(); code != 0 {
			t.Fatalf("exit %d:\n%s", code, p.screen())
		}
		if got := chatRequests(w.events(orig)); !slices.Equal(got, []string{"user:before the fork"}) {
			t.Errorf("original's requests = %q", got)
		}
		if got := chatRequests(w.events(fork)); !slices.Equal(got, []string{"user:before the fork", "user:after the fork"}) {
			t.Errorf("fork's requests = %q", got)
		}
		if out := w.run("conversation", "show", orig); !strings.Contains(out, "[config changed] assistant.model.id") {
			t.Errorf("/model was not recorded as a config_delta in %s:\n%s", orig, out)
		}
	})
}

func TestTmuxSessionAtCompletion(t *testing.T) {
	eachWidth(t, func(t *testing.T, w *tmuxWorld, start func(...string) *tmuxPane) {
		for name, content := range map[string]string{
			"src/greet.txt": "hello from greet\n",
			"secret.log":    "ignored\n",
			".gitignore":    "*.log\n",
		} {
			p := filepath.Join(w.proj, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p := start("chat", "--new")
		p.waitFor("ctrl+d: end")
		p.literal("read @")
		scr := p.waitFor("› ")
		if strings.Contains(scr, "secret.log") {
			t.Errorf("@ offers a file the ignore rules leave out:\n%s", scr)
		}
		p.literal("gre")
		p.waitFor("› src/greet.txt")
		p.keys("Tab")
		p.literal("please")
		p.waitFor("│ read @src/greet.txt please")
		p.keys("Enter")
		p.waitFor("You said: read @src/greet.txt please")
		p.waitForAfter("You said: read @src/greet.txt please", "ctrl+d: end")
		// Outside the checkout: not attached, said in one line.
		p.send("and @../../etc/passwd")
		p.waitFor("@../../etc/passwd is not attached")
		p.waitForAfter("You said: and @../../etc/passwd", "ctrl+d: end")
		p.keys("C-d")
		if code := p.exitCode(); code != 0 {
			t.Fatalf("exit %d:\n%s", code, p.screen())
		}
		id := w.onlyConversation()
		b, err := os.ReadFile(filepath.Join(w.proj, ".jp", "conversations", id, "events.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "hello from greet") || strings.Contains(string(b), "root:") {
			t.Errorf("the @path attachment is not in the conversation (or /etc/passwd is):\n%s", b)
		}
	})
}

func TestTmuxSessionDraftOnExit(t *testing.T) {
	eachWidth(t, func(t *testing.T, w *tmuxWorld, start func(...string) *tmuxPane) {
		w.run("q", "--new", "start")
		id := w.onlyConversation()
		// Ctrl-C clears, a second Ctrl-C leaves: the cleared text is the draft.
		p := start("chat")
		p.waitFor("ctrl+d: end")
		p.literal("typed then cleared")
		p.waitFor("│ typed then cleared")
		p.keys("C-c")
		p.waitFor("Ctrl-C again leaves")
		p.keys("C-c")
		if code := p.exitCode(); code != 0 {
			t.Fatalf("exit %d:\n%s", code, p.screen())
		}
		p.checkTerminalRestored()
		if got := w.draftText(id); !strings.Contains(got, "typed then cleared") {
			t.Fatalf("draft after Ctrl-C twice = %q", got)
		}
		// The next session opens with it; Ctrl-D with more typed keeps both.
		p = start("chat")
		p.waitFor("│ typed then cleared")
		p.literal(" and more")
		p.waitFor("│ typed then cleared and more")
		p.keys("C-d")
		if code := p.exitCode(); code != 0 {
			t.Fatalf("exit %d:\n%s", code, p.screen())
		}
		if got := w.draftText(id); !strings.Contains(got, "typed then cleared and more") {
			t.Fatalf("draft after Ctrl-D = %q", got)
		}
		if got := chatRequests(w.events(id)); len(got) != 1 {
			t.Errorf("chat requests = %q: unsent text was sent", got)
		}
	})
}

// jpPID is the pid of jp, the child of the pane's shell.
func (p *tmuxPane) jpPID() int {
	p.t.Helper()
	sh := strings.TrimSpace(p.tmux(nil, "display-message", "-p", "-t", p.session, "#{pane_pid}"))
	b, err := os.ReadFile(filepath.Join("/proc", sh, "task", sh, "children"))
	if err != nil {
		p.t.Skipf("cannot find jp's pid (no /proc children): %v", err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		p.t.Fatalf("no child of the pane's shell %s: %q", sh, b)
	}
	return pid
}

func TestTmuxSessionDraftOnSignals(t *testing.T) {
	eachWidth(t, func(t *testing.T, w *tmuxWorld, start func(...string) *tmuxPane) {
		w.run("q", "--new", "start")
		id := w.onlyConversation()
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
			text := "unsent before " + sig.String()
			p := start("chat")
			p.waitFor("ctrl+d: end")
			p.keys("C-u")
			p.literal(text)
			p.waitFor("│ " + text)
			if sig == syscall.SIGKILL {
				// Typed text is autosaved as the draft while it is typed.
				p.waitUntil("the autosaved draft", func(string) bool { return strings.Contains(w.draftText(id), text) })
			}
			if err := syscall.Kill(p.jpPID(), sig); err != nil {
				t.Fatal(err)
			}
			p.exitCode()
			if got := w.draftText(id); !strings.Contains(got, text) {
				t.Fatalf("after %v the draft is %q, not the unsent text", sig, got)
			}
			if got := chatRequests(w.events(id)); len(got) != 1 {
				t.Fatalf("after %v chat requests = %q: unsent text was sent", sig, got)
			}
		}
	})
}
