package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rows is what the pane shows, one terminal row a line (wrapped lines
// not joined), for checking where lines break.
func (p *tmuxPane) rows() []string {
	return strings.Split(p.tmux(nil, "capture-pane", "-p", "-t", p.session), "\n")
}

// allRows is rows with the pane's history above the screen.
func (p *tmuxPane) allRows() []string {
	return strings.Split(p.tmux(nil, "capture-pane", "-p", "-S", "-", "-t", p.session), "\n")
}

// wholeOnRows waits until every phrase is shown whole on one row below
// the last row holding marker (the menu drawn last), no row wider than
// width, and marker shown once: a menu laid out again on a resize leaves
// no copy of itself behind.
func (p *tmuxPane) wholeOnRows(width int, marker string, phrases ...string) {
	p.t.Helper()
	p.waitUntil(fmt.Sprintf("%q whole on rows of %d columns", phrases, width), func(string) bool {
		rows := p.rows()
		last := -1
		for i, r := range rows {
			if strings.Contains(r, marker) {
				if last >= 0 {
					return false
				}
				last = i
			}
		}
		if last < 0 {
			return false
		}
		for _, ph := range phrases {
			found := false
			for _, r := range rows[last:] {
				if len([]rune(r)) > width {
					return false
				}
				found = found || strings.Contains(r, ph)
			}
			if !found {
				return false
			}
		}
		return true
	})
}

// TestTmuxPermissionPrompts, at 80 and 120 columns: the permission prompt
// and the tool-call menu are laid out at word boundaries, and laid out
// again when the terminal is resized; Ctrl-C at the prompt opens the
// tool-call menu (not an exit) and [c] goes back to the prompt; ESC asks
// for a reason, which the model gets as the call's result.
func TestTmuxPermissionPrompts(t *testing.T) {
	requireTmux(t)
	t.Parallel()
	jp := buildJPBinary(t, t.TempDir())
	for _, width := range []int{80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			t.Parallel()
			w := newTmuxWorld(t, jp)
			greet := filepath.Join(w.proj, "greet.txt")
			if err := os.WriteFile(greet, []byte("hello world\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			script := w.file("script.json", `{"responses": [
  {"events": [{"tool_call": {"name": "fs_modify_file", "arguments": {"patterns": [{"old": "hello world", "new": "hello jp", "paths": ["greet.txt"]}]}}}]},
  {"events": [{"text": "Understood, leaving it."}]}
]}`)
			p := w.startJP("q", "--new", "--cfg", "providers.demo.script="+script, "fix the greeting")
			p.resize(width)
			permission := []string{"[y] run", "[Y] run, remember for this run", "[N] skip, remember for this run",
				"[e] edit the arguments", "[c] always for this conversation", "[w] always for this workspace"}
			p.wholeOnRows(width, "Run tool fs_modify_file", permission...)

			p.keys("C-c")
			menu := []string{"[c] Continue", "[r] Stop & respond", "[q] Queue reply (finish, then respond)", "[s] Stop (cancel & exit)", "[t] Restart"}
			p.wholeOnRows(width, "Interrupted", menu...)
			other := 200 - width // 120 -> 80, 80 -> 120
			p.resize(other)
			p.wholeOnRows(other, "Interrupted", menu...)
			p.resize(width)
			p.wholeOnRows(width, "Interrupted", menu...)
			p.keys("c")
			p.waitForAfter("› Continue", "[w] always for this workspace")

			p.keys("Escape")
			p.waitFor("Not running fs_modify_file")
			p.literal("keep the old greeting")
			p.keys("Enter")
			p.waitFor("Understood, leaving it.")
			if code := p.exitCode(); code != 0 {
				t.Fatalf("jp exited with %d:\n%s", code, p.screen())
			}
			if b, _ := os.ReadFile(greet); string(b) != "hello world\n" {
				t.Fatalf("the refused call changed greet.txt: %q", b)
			}
			var got []string
			for _, ev := range w.events(w.onlyConversation()) {
				if ev.Type == "tool_call_response" {
					got = append(got, ev.Content)
				}
			}
			if len(got) != 1 || !strings.Contains(got[0], "and said: keep the old greeting") {
				t.Fatalf("the model did not get the reason as the result: %q", got)
			}
		})
	}
}

// TestTmuxNotEnabledToolNotAsked: a call to a tool the configuration does
// not enable (web_fetch is off after jp init) is refused without a prompt,
// and the result tells the model which tools there are.
func TestTmuxNotEnabledToolNotAsked(t *testing.T) {
	requireTmux(t)
	t.Parallel()
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	script := w.file("script.json", `{"responses": [
  {"events": [{"tool_call": {"name": "web_fetch", "arguments": {"url": "https://example.com/"}}}]},
  {"events": [{"text": "I will use the file tools then."}]}
]}`)
	p := w.startJP("q", "--new", "--cfg", "providers.demo.script="+script, "list the files")
	scr := p.waitFor("I will use the file tools then.")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d:\n%s", code, p.screen())
	}
	if strings.Contains(scr, "Run tool web_fetch") || strings.Contains(scr, "[y] run") {
		t.Fatalf("jp asked about a tool that is not enabled:\n%s", scr)
	}
	var got []string
	for _, ev := range w.events(w.onlyConversation()) {
		if ev.Type == "tool_call_response" {
			got = append(got, ev.Content)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "The tool web_fetch is not enabled") || !strings.Contains(got[0], "fs_read_file") || !strings.Contains(got[0], "fs_modify_file") {
		t.Fatalf("the result does not name the enabled tools: %q", got)
	}
}

// TestTmuxEditArgumentsJSON: [e] on a permission prompt opens the call's
// arguments in a .json file (the editor, $EDITOR here, is a script that
// records the file's name and the arguments it was given).
func TestTmuxEditArgumentsJSON(t *testing.T) {
	requireTmux(t)
	t.Parallel()
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	if err := os.WriteFile(filepath.Join(w.proj, "greet.txt"), []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := w.file("script.json", `{"responses": [
  {"events": [{"tool_call": {"name": "fs_modify_file", "arguments": {"patterns": [{"old": "hello world", "new": "hello jp", "paths": ["greet.txt"]}]}}}]},
  {"events": [{"text": "Edited."}]}
]}`)
	seen := filepath.Join(w.base, "seen.txt")
	editor := w.file("editor.sh", "#!/bin/sh\necho \"$1\" > "+shQuote(seen)+"\ncat \"$1\" >> "+shQuote(seen)+"\n")
	if err := os.Chmod(editor, 0o755); err != nil {
		t.Fatal(err)
	}
	w.paneEnv = []string{"EDITOR=" + editor}
	p := w.startJP("q", "--new", "--cfg", "providers.demo.script="+script, "fix the greeting")
	p.waitFor("[e] edit the arguments")
	p.keys("e")
	p.waitForAfter("› edit the arguments", "[w] always for this workspace")
	p.keys("y")
	p.waitFor("Edited.")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d:\n%s", code, p.screen())
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the editor never ran: %v", err)
	}
	name, body, _ := strings.Cut(string(b), "\n")
	if !strings.HasSuffix(name, ".json") {
		t.Fatalf("the arguments were opened in %q, not a .json file", name)
	}
	if !strings.Contains(body, `"old": "hello world"`) {
		t.Fatalf("the editor's file does not hold the indented arguments:\n%s", body)
	}
}

// TestTmuxDemoHintWraps: at 80 columns the demo model's hint (a chrome
// note longer than the row) breaks between words, never inside one.
func TestTmuxDemoHintWraps(t *testing.T) {
	requireTmux(t)
	t.Parallel()
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	w.width = 80
	p := w.startJP("q", "--new", "hello")
	p.waitFor("You said: hello")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d:\n%s", code, p.screen())
	}
	rows := p.allRows()
	words := map[string]bool{}
	for _, r := range rows {
		if len([]rune(r)) > 80 {
			t.Fatalf("a row is wider than the pane: %q", r)
		}
		for _, f := range strings.Fields(r) {
			words[f] = true
		}
	}
	hint := "Using demo/echo (no model is set and no API key was found). Set assistant.model.id (e.g. --model openai/gpt-4o) or ANTHROPIC_API_KEY / OPENAI_API_KEY to use a real model."
	if !strings.Contains(strings.Join(rows, "\n"), "Using demo/echo") {
		t.Fatalf("no demo hint on screen:\n%s", strings.Join(rows, "\n"))
	}
	for _, f := range strings.Fields(hint) {
		if !words[f] {
			t.Fatalf("%q of the demo hint is split across rows:\n%s", f, strings.Join(rows, "\n"))
		}
	}
}

// TestTmuxAskTellUser: on a real terminal the model's ask_user question
// is a select the user answers with the arrow keys, its context shown
// above it; the answer reaches the model typed, and tell_user's message is
// printed between the tool calls.
func TestTmuxAskTellUser(t *testing.T) {
	requireTmux(t)
	t.Parallel()
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	w.width = 80
	cfg := filepath.Join(w.proj, ".jp", "config.toml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, "\n[conversation.tools.ask_user]\nenable = true\n\n[conversation.tools.tell_user]\nenable = true\n"...)
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	w.run("workspace", "trust")
	script := w.file("script.json", `{"responses": [
  {"events": [{"tool_call": {"name": "tell_user", "arguments": {"message": "Checked the config: two ways to go."}}}]},
  {"events": [{"tool_call": {"name": "ask_user", "arguments": {"question": "Apply with a backup, or overwrite?", "context": "Production config is changed in place.", "answer_type": "select", "options": ["backup", "overwrite"]}}}]},
  {"events": [{"text": "Going ahead."}]}
]}`)
	p := w.startJP("q", "--new", "--cfg", "providers.demo.script="+script, "deploy")
	p.waitFor("Checked the config: two ways to go.")
	p.waitFor("Apply with a backup, or overwrite?")
	scr := p.waitFor("overwrite")
	if !strings.Contains(scr, "Production config is changed in place.") {
		t.Fatalf("the question's context is not shown:\n%s", scr)
	}
	p.keys("Down", "Enter")
	p.waitFor("Going ahead.")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d:\n%s", code, p.screen())
	}
	var got []string
	for _, ev := range w.events(w.onlyConversation()) {
		if ev.Type == "tool_call_response" {
			got = append(got, ev.Content)
		}
	}
	want := []string{"Message shown to user.", `{"answer_type":"select","answer":"overwrite"}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("tool results %q, want %q", got, want)
	}
}
