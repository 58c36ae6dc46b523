package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The words the type-ahead tests stream: eight a piece, 250 times (2,000
// tokens), tens of milliseconds apart: long enough to type while it streams
// on a loaded machine.
var typeAheadWords = []string{"lorem", "ipsum", "dolor", "sit", "amet,", "consectetur", "adipiscing", "elit"}

func typeAheadScript(repeat, sleepMS int) string {
	return fmt.Sprintf(`{"responses": [{"events": [{"text": "%s ", "repeat": %d, "sleep_ms": %d}]}]}`,
		strings.Join(typeAheadWords, " "), repeat, sleepMS)
}

// checkStreamedLines fails when a line of the screen that holds streamed
// words holds anything else (a word split across lines, typed text torn
// into the answer) or is wider than the pane.
func checkStreamedLines(t *testing.T, scr string, cols int, typed string) {
	t.Helper()
	for _, line := range strings.Split(scr, "\n") {
		fields := strings.Fields(line)
		streamed := slices.ContainsFunc(fields, func(f string) bool { return slices.Contains(typeAheadWords, f) })
		if !streamed {
			continue
		}
		// The capture joins lines the terminal wrapped: a streamed line
		// wider than the pane was wrapped by the terminal, not at a word.
		if w := len([]rune(strings.TrimRight(line, " "))); w > cols {
			t.Fatalf("a streamed line of %d columns in a %d-column pane: %q", w, cols, line)
		}
		for _, f := range fields {
			if !slices.Contains(typeAheadWords, f) {
				t.Fatalf("streamed line holds %q (a split word or torn text):\n%q\nscreen:\n%s", f, line, scr)
			}
		}
		if typed != "" && strings.Contains(line, typed) {
			t.Fatalf("typed text in a streamed line: %q", line)
		}
	}
}

// TestTmuxTypeAhead: while a 2,000-token answer streams, the user types a
// reply. It shows on the status line below the answer, never inside it;
// Enter queues it, the countdown runs when the turn ends, and it is sent
// as the next turn. No streamed line is torn or splits a word, at 80 and
// at 120 columns.
func TestTmuxTypeAhead(t *testing.T) {
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	for _, cols := range []int{80, 120} {
		t.Run(fmt.Sprintf("Stream%d", cols), func(t *testing.T) {
			t.Parallel()
			w := newTmuxWorld(t, jp)
			script := w.file("slow.json", typeAheadScript(250, 40))
			p := w.startJPSize(cols, 30, "q", "--new",
				"--cfg", "providers.demo.script="+script,
				"--cfg", "interrupt.loop_countdown.duration_secs=1",
				"write a long answer")
			p.waitFor("consectetur adipiscing")
			const typed = "then summarise it"
			p.literal(typed)
			scr := p.waitFor("› " + typed)
			checkStreamedLines(t, scr, cols, typed)
			// The status line is the last line with text: the answer goes
			// on streaming above it.
			scr = p.waitUntil("more streamed text above the status line", func(s string) bool {
				return strings.Count(s, "lorem") > strings.Count(scr, "lorem")
			})
			checkStreamedLines(t, scr, cols, typed)
			lines := strings.Split(strings.TrimRight(scr, "\n "), "\n")
			if last := lines[len(lines)-1]; !strings.Contains(last, "› "+typed) {
				t.Errorf("the last line is %q, not the status line; screen:\n%s", last, scr)
			}
			p.keys("Enter")
			scr = p.waitFor("reply queued, sent when this turn ends")
			checkStreamedLines(t, scr, cols, typed)
			p.waitFor(countdownText)
			scr = p.waitFor("You said: " + typed)
			checkStreamedLines(t, scr, cols, typed)
			if code := p.exitCode(); code != 0 {
				t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
			}
			p.checkTerminalRestored()
			// The queued turn's message was echoed, quoted, after a rule.
			hist := p.history()
			if !strings.Contains(hist, "│ "+typed) || !strings.Contains(hist, "────") {
				t.Errorf("the queued message is not echoed after a rule:\n%s", hist)
			}
			w.checkQueuedReplySent("user:write a long answer", "queued:"+typed)
		})
	}
}

// TestTmuxTypeAheadEscClears: Esc clears the typed line; nothing is
// queued and the turn ends as it would have.
func TestTmuxTypeAheadEscClears(t *testing.T) {
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	script := w.file("slow.json", typeAheadScript(120, 50))
	p := w.startJPSize(80, 30, "q", "--new", "--cfg", "providers.demo.script="+script, "go")
	p.waitFor("consectetur adipiscing")
	p.literal("never mind")
	p.waitFor("› never mind")
	p.keys("Escape")
	p.waitUntil("the status line cleared", func(s string) bool { return !strings.Contains(s, "never mind") })
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
	}
	id := w.onlyConversation()
	if got := chatRequests(w.events(id)); len(got) != 1 {
		t.Errorf("chat requests = %q, want the first message only", got)
	}
	if w.draftExists(id) {
		t.Errorf("a cleared type-ahead line left a draft: %q", w.draftText(id))
	}
}

// TestTmuxTypeAheadDuringToolCall: typing while a tool runs goes to the
// status line too; the queued reply is sent after the countdown. The call
// is shown as one line.
func TestTmuxTypeAheadDuringToolCall(t *testing.T) {
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	for _, cols := range []int{80, 120} {
		t.Run(fmt.Sprintf("Tool%d", cols), func(t *testing.T) {
			t.Parallel()
			w := newTmuxWorld(t, jp)
			script := w.file("tool.json", `{"responses": [
  {"events": [{"tool_call": {"name": "shell", "arguments": {"command": "sleep 3; echo slept"}}}]},
  {"events": [{"text": "The command slept."}]}
]}`)
			p := w.startJPSize(cols, 30, "q", "--new",
				"--cfg", "providers.demo.script="+script,
				"--cfg", "conversation.tools.shell.run=unattended",
				"--cfg", "interrupt.loop_countdown.duration_secs=1",
				"run it")
			p.waitFor("$ shell sleep 3; echo slept")
			const typed = "and now the tests"
			p.literal(typed)
			p.waitFor("› " + typed)
			p.keys("Enter")
			p.waitFor("reply queued, sent when this turn ends")
			scr := p.waitFor("shell: slept")
			if strings.Contains(scr, `{"command"`) {
				t.Errorf("the call is shown with its JSON arguments:\n%s", scr)
			}
			p.waitFor(countdownText)
			p.waitFor("You said: " + typed)
			if code := p.exitCode(); code != 0 {
				t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
			}
			w.checkQueuedReplySent("user:run it", "queued:"+typed)
		})
	}
}
