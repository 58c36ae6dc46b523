package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// slowScript is a demo script whose first response streams "word " 400
// times, 20 ms apart (about eight seconds): long enough to press Ctrl-C,
// queue a reply and still see the stream resume. Later calls echo.
const slowScript = `{"responses": [{"events": [{"text": "word ", "repeat": 400, "sleep_ms": 20}]}]}`

// The streaming menu and the countdown menu, as the terminal shows them
// (laid out at word boundaries at the pane's 120 columns).
const (
	streamingMenuLine = "[c] Continue  [r] Reply (stop & respond)  [q] Queue reply (finish, then respond)  [s] Stop (save & exit)\n[a] Abort (discard & exit)"
	toolCallMenuLine  = "[c] Continue  [r] Stop & respond  [q] Queue reply (finish, then respond)  [s] Stop (cancel & exit)  [t] Restart"
	countdownMenuLine = "[n] Send now  [e] Edit draft  [k] Keep draft (don't send)  [d] Discard draft"
	countdownText     = "Sending queued reply in"
	queuedNote        = "Reply queued: it is sent when this turn ends."
)

// TestTmux drives the real jp binary on a real terminal (tmux): Ctrl-C
// from the keyboard, the raw-mode menus, the inline composer and the
// countdown, as a user meets them.
func TestTmux(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())

	// [q] during streaming: the reply is composed, streaming resumes, the
	// countdown runs and the queued reply is sent as the second turn.
	t.Run("QueueReplyDuringStreaming", func(t *testing.T) { tmuxQueueReplyDuringStreaming(t, jp) })

	// The countdown redraws its line in place: going from 10s to 9s (one
	// character shorter) leaves nothing of the longer line behind.
	t.Run("CountdownRedrawClearsLine", func(t *testing.T) { tmuxCountdownRedrawClearsLine(t, jp) })

	// Ctrl-C during the countdown opens the countdown menu; [e] edits the
	// queued reply (the composer is seeded with it) and returns to the menu
	// with no countdown running; [n] sends the edited text.
	t.Run("CountdownMenuEditThenSend", func(t *testing.T) { tmuxCountdownMenuEditThenSend(t, jp) })

	// Three quick Ctrl-C presses during the stream: the first opens the
	// menu, the second (a key on the raw-mode menu) begins a graceful
	// shutdown, the third (a signal again) exits at once if jp is still
	// running. Either way jp exits 130 and leaves the terminal as it found
	// it.
	t.Run("TripleCtrlCExits130", func(t *testing.T) { tmuxTripleCtrlCExits130(t, jp) })

	// [c] Continue: the menu and the answer stay on screen, and the
	// stream goes on below them without rewriting what is above.
	t.Run("ContinueKeepsTheMenuOnScreen", func(t *testing.T) { tmuxContinueKeepsTheMenuOnScreen(t, jp) })

	// The third press exits at once, even while the graceful shutdown
	// begun by the second is still waiting: here for a tool that ignores
	// SIGTERM (jp waits 2 s before it kills it). The router restores the
	// terminal before it exits with 130.
	t.Run("ThirdCtrlCExitsWhileShutdownWaits", func(t *testing.T) { tmuxThirdCtrlCExitsWhileShutdownWaits(t, jp) })

	// The tool-call menu stays readable while the tools it interrupted keep
	// running.
	t.Run("ToolCallMenuStaysOnScreen", func(t *testing.T) { tmuxToolCallMenuStaysOnScreen(t, jp) })
}

func tmuxQueueReplyDuringStreaming(t *testing.T, jp string) {
	t.Parallel()
	w := newTmuxWorld(t, jp)
	script := w.file("slow.json", slowScript)
	p := w.startJP("q", "--new",
		"--cfg", "providers.demo.script="+script,
		"--cfg", "interrupt.loop_countdown.duration_secs=2",
		"write a long answer")

	p.queueReply("now summarise it")

	// The composer closed and the stream goes on where it was.
	p.waitForAfter(queuedNote, "word word word")
	p.waitFor(countdownText)
	scr := p.waitFor("You said: now summarise it")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
	}
	// The countdown came after the first turn's answer, before the
	// second turn.
	if cd, said := strings.Index(scr, countdownText), strings.Index(scr, "You said:"); cd < 0 || said < cd {
		t.Errorf("the countdown line is not between the turns:\n%s", scr)
	}

	w.checkQueuedReplySent("user:write a long answer", "queued:now summarise it")
}

func tmuxCountdownRedrawClearsLine(t *testing.T, jp string) {
	t.Parallel()
	w := newTmuxWorld(t, jp)
	script := w.file("slow.json", slowScript)
	p := w.startJP("q", "--new",
		"--cfg", "providers.demo.script="+script,
		"--cfg", "interrupt.loop_countdown.duration_secs=10",
		"write a long answer")

	p.queueReply("then this")
	p.waitFor(queuedNote)
	p.waitFor("Sending queued reply in 10s")
	scr := p.waitFor("Sending queued reply in 9s")
	const want = "⏳ Sending queued reply in 9s… (^C to review)"
	found := false
	for _, line := range strings.Split(scr, "\n") {
		if strings.Contains(line, countdownText) {
			found = true
			if got := strings.TrimRight(line, " "); got != want {
				t.Errorf("the countdown line reads %q, want %q", got, want)
			}
		}
	}
	if !found {
		t.Fatalf("no countdown line on the screen:\n%s", scr)
	}
	// Send it now rather than wait out the countdown.
	p.keys("C-c")
	p.waitFor(countdownMenuLine)
	p.keys("n")
	p.waitForAfter("› Send now", "You said: then this")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
	}
}

func tmuxCountdownMenuEditThenSend(t *testing.T, jp string) {
	t.Parallel()
	const duration = 5 * time.Second
	w := newTmuxWorld(t, jp)
	script := w.file("slow.json", slowScript)
	p := w.startJP("q", "--new",
		"--cfg", "providers.demo.script="+script,
		"--cfg", "interrupt.loop_countdown.duration_secs=5",
		"write a long answer")

	p.queueReply("first text")
	p.waitFor(queuedNote)

	p.waitFor(countdownText)
	countdownSeen := time.Now()
	p.keys("C-c")
	p.waitFor(countdownMenuLine)
	p.keys("e")
	// The composer opens seeded with the queued text.
	p.waitForAfter("› Edit draft", "first text")
	p.keys("C-u")
	p.waitUntil("the composer emptied", func(scr string) bool {
		after, ok := afterLast(scr, "› Edit draft")
		return ok && !strings.Contains(after, "first text")
	})
	p.literal("second text")
	p.waitForAfter("› Edit draft", "second text")
	p.keys("Enter")

	// Back to the menu, with no countdown running: nothing is sent
	// while the menu waits, even past the countdown's end.
	menuAgain := func(scr string) bool { return strings.Count(scr, countdownMenuLine) >= 2 }
	p.waitUntil("the countdown menu a second time", menuAgain)
	for time.Since(countdownSeen) < duration+time.Second {
		time.Sleep(100 * time.Millisecond)
	}
	scr := p.screen()
	after, _ := afterLast(scr, countdownMenuLine)
	if !menuAgain(scr) || strings.Contains(after, countdownText) || strings.Contains(scr, "You said:") {
		t.Fatalf("after [e], the countdown menu should wait with no countdown running; the screen shows:\n%s", scr)
	}
	p.keys("n")
	p.waitForAfter("› Send now", "You said: second text")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
	}

	w.checkQueuedReplySent("user:write a long answer", "queued:second text")
}

func tmuxTripleCtrlCExits130(t *testing.T, jp string) {
	t.Parallel()
	w := newTmuxWorld(t, jp)
	script := w.file("slow.json", slowScript)
	p := w.startJP("q", "--new", "--cfg", "providers.demo.script="+script, "write a long answer")

	p.waitFor("word word word")
	p.keys("C-c")
	// The menu is drawn after the terminal is put in raw mode, so the
	// next press reaches it as a key. (Presses sent back to back, before
	// jp reacts, merge into one SIGINT, as the kernel and the Go runtime
	// coalesce a pending signal.)
	p.waitFor(streamingMenuLine)
	p.keys("C-c")
	// The second press reached the menu as a key (its answer line is
	// drawn) before the third is sent as a signal again.
	p.waitFor("› interrupted")
	p.keys("C-c")
	if code := p.exitCode(); code != 130 {
		t.Fatalf("jp exited with %d, want 130; the screen shows:\n%s", code, p.screen())
	}
	p.checkTerminalRestored()
}

func tmuxContinueKeepsTheMenuOnScreen(t *testing.T, jp string) {
	t.Parallel()
	w := newTmuxWorld(t, jp)
	script := w.file("slow.json", slowScript)
	p := w.startJP("q", "--new", "--cfg", "providers.demo.script="+script, "write a long answer")

	p.waitFor("word word word")
	p.keys("C-c")
	p.waitFor(streamingMenuLine)
	p.keys("c")
	p.waitFor("› Continue")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
	}
	all := p.tmux(nil, "capture-pane", "-p", "-J", "-S", "-", "-t", p.session)
	if !strings.Contains(all, streamingMenuLine+" › Continue") {
		t.Errorf("the menu and its answer are gone from the terminal:\n%s", all)
	}
	if n := strings.Count(all, "word"); n != 400 {
		t.Errorf("the terminal shows %d words, want the 400 streamed once each:\n%s", n, all)
	}
}

func tmuxThirdCtrlCExitsWhileShutdownWaits(t *testing.T, jp string) {
	t.Parallel()
	w := newTmuxWorld(t, jp)
	if err := os.WriteFile(filepath.Join(w.proj, ".jp", "config.toml"), []byte(stubbornTool), 0o644); err != nil {
		t.Fatal(err)
	}
	w.run("workspace", "trust")
	script := w.file("tool.json", `{"responses": [{"events": [{"tool_call": {"name": "stubborn", "arguments": {}}}]}]}`)
	p := w.startJP("q", "--new", "--cfg", "providers.demo.script="+script, "run the tool")

	p.waitFor("$ stubborn")
	p.keys("C-c")
	// The title is drawn after the terminal is put in raw mode. (The
	// menu line under it is soon overwritten by the "running stubborn"
	// spinner: see ToolCallMenuStaysOnScreen.)
	p.waitFor("Interrupted")
	p.keys("C-c") // a key on the raw-mode menu: graceful shutdown, which waits for the tool
	p.waitFor("› interrupted")
	p.keys("C-c") // a signal again: exit now
	if code := p.exitCode(); code != 130 {
		t.Fatalf("jp exited with %d, want 130; the screen shows:\n%s", code, p.screen())
	}
	p.checkTerminalRestored()
	// A graceful shutdown would have ended with jp's error line; the
	// third press does not wait for it.
	if scr := p.screen(); strings.Contains(scr, "jp: interrupted") {
		t.Errorf("jp finished its graceful shutdown instead of exiting at the third press:\n%s", scr)
	}
}

func tmuxToolCallMenuStaysOnScreen(t *testing.T, jp string) {
	t.Parallel()
	w := newTmuxWorld(t, jp)
	if err := os.WriteFile(filepath.Join(w.proj, ".jp", "config.toml"), []byte(stubbornTool), 0o644); err != nil {
		t.Fatal(err)
	}
	w.run("workspace", "trust")
	script := w.file("tool.json", `{"responses": [{"events": [{"tool_call": {"name": "stubborn", "arguments": {}}}]}]}`)
	p := w.startJP("q", "--new", "--cfg", "providers.demo.script="+script, "run the tool")

	p.waitFor("$ stubborn")
	p.keys("C-c")
	p.waitFor(toolCallMenuLine)
	// The spinner draws every 100 ms: give it a few frames.
	time.Sleep(500 * time.Millisecond)
	if scr := p.screen(); !strings.Contains(scr, toolCallMenuLine) {
		t.Errorf("the tool-call menu was overwritten while it waited for a key:\n%s", scr)
	}
	p.keys("s")
	if code := p.exitCode(); code != 0 {
		t.Errorf("jp exited with %d after [s] Stop; the screen shows:\n%s", code, p.screen())
	}
}

// queueReply waits for the stream, presses Ctrl-C, picks [q] Queue reply
// on the streaming menu and sends text from the composer.
func (p *tmuxPane) queueReply(text string) {
	p.t.Helper()
	p.waitFor("word word word")
	p.keys("C-c")
	p.waitFor(streamingMenuLine)
	p.keys("q")
	p.waitFor("Queue a reply (sent when this turn ends)")
	p.literal(text)
	p.waitForAfter("Queue a reply", text)
	p.keys("Enter")
}

// checkQueuedReplySent checks that the workspace's one conversation holds
// the chat requests want, in order, and no draft: the queued reply was
// sent.
func (w *tmuxWorld) checkQueuedReplySent(want ...string) {
	w.t.Helper()
	id := w.onlyConversation()
	if got := chatRequests(w.events(id)); !slices.Equal(got, want) {
		w.t.Errorf("chat requests = %q, want %q", got, want)
	}
	if w.draftExists(id) {
		w.t.Errorf("QUERY_MESSAGE.md is still there after the queued reply was sent")
	}
}

// TestTmuxAbandonedComposeKeepsText: text typed into jp q's composer and
// abandoned with ESC is not sent and not lost: it is the conversation's
// draft, said in exactly one line printed after the composer has left the
// terminal, and the next jp q -i opens the composer with it; what is typed
// after that seed is kept with it on the next ESC.
func TestTmuxAbandonedComposeKeepsText(t *testing.T) {
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	w.run("q", "--new", "first")
	id := w.onlyConversation()
	const notSent = "Not sent. What you typed is the draft of conversation "

	p := w.startJP("q", "-i", id)
	raw := p.record()
	p.waitFor("Message")
	p.literal("half a thought I must not lose")
	p.waitForAfter("Message", "half a thought I must not lose")
	p.keys("Escape")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
	}
	checkOneNotSentLine(t, p, raw(), notSent+id)
	if got := w.draftText(id); !strings.Contains(got, "half a thought I must not lose") {
		t.Fatalf("the draft after ESC is %q, not what was typed", got)
	}
	if got := chatRequests(w.events(id)); len(got) != 1 {
		t.Errorf("chat requests = %q: the abandoned text was sent", got)
	}

	// The next compose starts from it; typing more and ESC keeps both.
	p = w.startJP("q", "-i", id)
	raw = p.record()
	p.waitForAfter("Message", "half a thought I must not lose")
	p.literal(", and the rest of it")
	p.waitForAfter("Message", "and the rest of it")
	p.keys("Escape")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
	}
	checkOneNotSentLine(t, p, raw(), notSent+id)
	if got := w.draftText(id); !strings.Contains(got, "half a thought I must not lose, and the rest of it") {
		t.Fatalf("the draft after the second ESC is %q, not the seed and what was typed", got)
	}
	if got := chatRequests(w.events(id)); len(got) != 1 {
		t.Errorf("chat requests = %q: the abandoned text was sent", got)
	}
}

// checkOneNotSentLine checks that the terminal shows line exactly once
// and nothing contradicting it, and that jp wrote it after the composer
// had restored the terminal (cursor shown, bracketed paste off), with no
// cursor movement after it that could draw over it.
func checkOneNotSentLine(t *testing.T, p *tmuxPane, raw, line string) {
	t.Helper()
	all := p.history()
	if n := strings.Count(all, line); n != 1 || strings.Contains(all, "Nothing to send") {
		t.Errorf("want the line %q once and no \"Nothing to send\", found it %d times; the terminal shows:\n%s", line, n, all)
	}
	at := strings.LastIndex(raw, "Not sent.")
	restored := max(strings.LastIndex(raw, "\x1b[?25h"), strings.LastIndex(raw, "\x1b[?2004l"))
	if at < 0 || restored < 0 || at < restored {
		t.Errorf("the Not sent line (at byte %d) was not written after the composer restored the terminal (at byte %d):\n%q", at, restored, tail(raw, 600))
	}
	if after := raw[max(at, 0):]; strings.ContainsAny(after, "\x1b") && strings.Contains(strings.ReplaceAll(after, "\x1b[0m", ""), "\x1b[") {
		t.Errorf("cursor or erase sequences after the Not sent line: %q", after)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// stubbornTool is a local tool that ignores SIGTERM and runs for a while.
const stubbornTool = `[conversation.tools.stubborn]
command = ["sh", "-c", "trap '' TERM; sleep 8"]
description = "Ignores SIGTERM."
run = "unattended"
`
