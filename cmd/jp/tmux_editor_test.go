package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTmuxEditFlag: jp q -e opens the editor on the seed text even with
// $EDITOR unset (vi found on $PATH, where there is no editor or nano),
// and sends what was saved; an editor that quits without saving (vim's
// :cq) keeps the seed text as the conversation's draft.
func TestTmuxEditFlag(t *testing.T) {
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	w.run("q", "--new", "first")
	id := w.onlyConversation()

	bin := filepath.Join(w.base, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"stty", "cat"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	seen := filepath.Join(w.base, "vi-saw")
	vi := "#!/bin/sh\nfor f; do :; done\ncat \"$f\" > " + shQuote(seen) + "\n" +
		"if [ -e " + shQuote(filepath.Join(w.base, "quit")) + " ]; then exit 1; fi\n" +
		"printf 'seed text, edited in vi\\n' > \"$f\"\n"
	if err := os.WriteFile(filepath.Join(bin, "vi"), []byte(vi), 0o755); err != nil {
		t.Fatal(err)
	}
	w.paneEnv = append(w.paneEnv, "PATH="+bin)

	p := w.startJP("q", "-e", "-i", id, "seed text")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp q -e exited with %d; the screen shows:\n%s", code, p.screen())
	}
	if b, err := os.ReadFile(seen); err != nil || !strings.Contains(string(b), "seed text") {
		t.Fatalf("vi was not run on the seed text: %q, %v; the screen shows:\n%s", b, err, p.screen())
	}
	if got := chatRequests(w.events(id)); len(got) != 2 || !strings.Contains(got[1], "seed text, edited in vi") {
		t.Fatalf("chat requests = %q, want the text saved in vi sent", got)
	}

	// vi quits with an error status (:cq): nothing is sent, the seed text
	// is the draft, and one line says so.
	w.file("quit", "")
	p = w.startJP("q", "-e", "-i", id, "a seed I must not lose")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp q -e exited with %d; the screen shows:\n%s", code, p.screen())
	}
	if got := w.draftText(id); !strings.Contains(got, "a seed I must not lose") {
		t.Fatalf("the draft after vi quit is %q, not the seed text; the screen shows:\n%s", got, p.screen())
	}
	if got := chatRequests(w.events(id)); len(got) != 2 {
		t.Errorf("chat requests = %q: the abandoned seed was sent", got)
	}
	// One line says so, nothing contradicts it (the scrollback is read:
	// tmux's "Pane is dead" line scrolls the top line off the screen).
	all := p.history()
	if n := strings.Count(all, "Not sent. What you typed is the draft of conversation "+id); n != 1 || strings.Contains(all, "Nothing to send") {
		t.Errorf("want one Not sent line and no \"Nothing to send\", found %d; the terminal shows:\n%s", n, all)
	}
}
