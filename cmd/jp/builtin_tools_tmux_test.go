package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTmuxBuiltinToolDiffEdit: on a real terminal, fs_modify_file's
// permission prompt shows the coloured diff; [e] opens the arguments in
// the editor ($VISUAL, here a script that rewrites them), the new diff is
// shown and asked again, [y] applies it.
func TestTmuxBuiltinToolDiffEdit(t *testing.T) {
	requireTmux(t)
	t.Parallel()
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	greet := filepath.Join(w.proj, "greet.txt")
	if err := os.WriteFile(greet, []byte("hello world\nbye\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := w.file("edit.json", `{"responses": [
  {"events": [{"tool_call": {"name": "fs_modify_file", "arguments": {"patterns": [{"old": "hello world", "new": "hello jp", "paths": ["greet.txt"]}]}}}]},
  {"events": [{"text": "Edited."}]}
]}`)
	editor := w.file("editor.sh", "#!/bin/sh\nsed -i 's/hello jp/hello tmux/' \"$1\"\n")
	if err := os.Chmod(editor, 0o755); err != nil {
		t.Fatal(err)
	}
	w.paneEnv = []string{"VISUAL=" + editor}
	p := w.startJP("q", "--new", "--cfg", "providers.demo.script="+script, "fix the greeting")

	scr := p.waitFor("[e] edit the arguments")
	for _, want := range []string{"--- a/greet.txt", "-hello world", "+hello jp", "Run tool fs_modify_file: modify greet.txt (1 replacement)?", "[w] always for this workspace"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("the prompt lacks %q:\n%s", want, scr)
		}
	}
	p.keys("e")
	scr = p.waitForAfter("› edit the arguments", "+hello tmux")
	if !strings.Contains(scr, "[c] always for this conversation") {
		t.Fatalf("the prompt is not asked again after the edit:\n%s", scr)
	}
	p.keys("y")
	p.waitFor("Edited.")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d:\n%s", code, p.screen())
	}
	b, err := os.ReadFile(greet)
	if err != nil || string(b) != "hello tmux\nbye\n" {
		t.Fatalf("greet.txt = %q (%v)", b, err)
	}
	// The diff was coloured: the pane's escape sequences are not in the
	// captured text, but the added line must not carry raw bytes either.
	if strings.Contains(p.screen(), "\x1b") {
		t.Fatal("raw escape bytes on screen")
	}
}
