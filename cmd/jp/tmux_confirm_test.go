package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTmuxConversationRmAsks: jp conversation rm on a terminal asks
// (y/N); Enter and n keep the conversation, y moves it to the trash,
// where jp conversation restore --list shows it.
func TestTmuxConversationRmAsks(t *testing.T) {
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	w.run("q", "--new", "keep me please")
	id := w.onlyConversation()
	const question = "(kept in the trash for 30 days) [y/N]"

	for _, answer := range [][]string{{"Enter"}, {"n", "Enter"}, {"N", "o", "Enter"}} {
		p := w.startJP("conversation", "rm", id)
		p.waitFor(question)
		p.keys(answer...)
		if code := p.exitCode(); code != 0 {
			t.Fatalf("answer %q: jp exited with %d; the screen shows:\n%s", answer, code, p.screen())
		}
		if s := p.screen(); !strings.Contains(s, "Nothing removed.") || strings.Contains(s, "Removed conversation") {
			t.Fatalf("answer %q: want \"Nothing removed.\"; the screen shows:\n%s", answer, s)
		}
		if got := w.onlyConversation(); got != id {
			t.Fatalf("answer %q: the conversation is %s, want %s", answer, got, id)
		}
	}

	p := w.startJP("c", "rm", id)
	scr := p.waitFor(question)
	if !strings.Contains(scr, "Remove "+id+" (keep me please)?") {
		t.Errorf("the question does not name the conversation and its title:\n%s", scr)
	}
	p.keys("y", "Enter")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
	}
	p.waitFor("Removed conversation " + id)
	if out := w.run("conversation", "ls"); strings.Contains(out, "keep me please") {
		t.Errorf("jp conversation ls still lists %s after y:\n%s", id, out)
	}
	if out := w.run("conversation", "restore", "--list"); !strings.Contains(out, id) {
		t.Errorf("jp conversation restore --list does not show %s:\n%s", id, out)
	}
}

// TestTmuxEditFlagNoEditor: jp q -e with no editor anywhere ($JP_EDITOR,
// $VISUAL and $EDITOR unset, no editor, nano or vi on $PATH) says in one
// line how to set one, and keeps the seed text as the draft.
func TestTmuxEditFlagNoEditor(t *testing.T) {
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	w.run("q", "--new", "first")
	id := w.onlyConversation()
	bin := filepath.Join(w.base, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	w.paneEnv = append(w.paneEnv, "PATH="+bin)

	p := w.startJP("q", "-e", "-i", id, "a seed with no editor")
	p.exitCode()
	all := p.history()
	if n := strings.Count(all, "no editor found: set editor.cmd, $JP_EDITOR, $VISUAL or $EDITOR"); n != 1 {
		t.Errorf("want one line saying how to set an editor, found %d; the terminal shows:\n%s", n, all)
	}
	if got := w.draftText(id); !strings.Contains(got, "a seed with no editor") {
		t.Errorf("the draft is %q, not the seed text; the terminal shows:\n%s", got, all)
	}
	if got := chatRequests(w.events(id)); len(got) != 1 {
		t.Errorf("chat requests = %q: the seed was sent", got)
	}
}

// history is the pane's scrollback and screen. When jp exits at the top
// of a pane, tmux's "Pane is dead" line scrolls the first line into the
// scrollback, so a check of what jp printed last reads this rather than
// the screen.
func (p *tmuxPane) history() string {
	p.t.Helper()
	return p.tmux(nil, "capture-pane", "-p", "-J", "-S", "-", "-t", p.session)
}

// record returns a function reading every byte the pane's program has
// written: tmux copies them to the pane's output file from its start
// (startJPSize), one file per pane.
func (p *tmuxPane) record() func() string {
	p.t.Helper()
	out := p.out
	return func() string {
		b, err := os.ReadFile(out)
		if err != nil {
			p.t.Fatal(err)
		}
		return string(b)
	}
}
