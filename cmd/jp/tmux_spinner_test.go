package main

import (
	"strings"
	"testing"
)

// TestTmuxSpinnerNamesTheWait: while the provider is slow to send its
// first byte, the terminal shows a spinner naming the model; the answer
// then replaces it with nothing of the spinner left on any line.
func TestTmuxSpinnerNamesTheWait(t *testing.T) {
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	// Two seconds before the first byte, then the answer.
	script := w.file("slow-start.json", `{"responses": [{"events": [{"sleep_ms": 2000}, {"text": "The answer is 42."}]}]}`)
	p := w.startJP("q", "--new", "--cfg", "providers.demo.script="+script, "what is it")
	raw := p.record()
	p.waitFor("waiting for demo/echo…")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
	}
	all := p.history()
	found := false
	for _, line := range strings.Split(all, "\n") {
		if strings.Contains(line, "waiting for") || strings.ContainsAny(line, strings.Join(spinnerGlyphs, "")) {
			t.Errorf("a spinner is left on the line %q; the terminal shows:\n%s", line, all)
		}
		if strings.Contains(line, "The answer is 42.") {
			found = true
			if got := strings.TrimSpace(line); got != "The answer is 42." {
				t.Errorf("the answer's line is %q, want only the answer", got)
			}
		}
	}
	if !found {
		t.Fatalf("no answer on the terminal:\n%s", all)
	}
	// The spinner was drawn, then erased before the answer was written.
	r := raw()
	drawn, answer := strings.Index(r, "waiting for demo/echo…"), strings.Index(r, "The answer is 42.")
	if drawn < 0 || answer < drawn || !strings.Contains(r[drawn:answer], "\r\x1b[K") {
		t.Errorf("the spinner line was not erased before the answer:\n%q", r)
	}
}

// spinnerGlyphs are the spinner's frames (adapters/terminal).
var spinnerGlyphs = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
