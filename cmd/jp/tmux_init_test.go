package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTmuxInitAsksUserName: on a terminal, jp init asks for user.name as
// the Rust jp's init does, pre-filled with the login name (git has no
// global name in the test's home), and records the answer in the user
// configuration file.
func TestTmuxInitAsksUserName(t *testing.T) {
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	file := filepath.Join(w.base, "config", "jp", "config.toml")
	if _, err := os.Stat(file); err == nil {
		t.Fatal("jp init without a terminal wrote the user configuration file")
	}
	w.paneEnv = append(w.paneEnv, "USER=Tester")
	p := w.startJP("init", "sub")
	p.waitFor("Your name for conversations")
	p.keys("Enter")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp init exited with %d; the screen shows:\n%s", code, p.screen())
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "[user]\nname = \"Tester\"") {
		t.Fatalf("the user configuration file holds:\n%s", b)
	}
}
