package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTmuxConversationPicker: jp c use ? lists the conversations on the
// terminal; typing narrows the list by title, Enter makes the one chosen
// active.
func TestTmuxConversationPicker(t *testing.T) {
	requireTmux(t)
	jp := buildJPBinary(t, t.TempDir())
	w := newTmuxWorld(t, jp)
	w.run("q", "--new", "alpha about builds")
	w.run("q", "--new", "beta about lunch")
	var list []struct {
		ID       string `json:"id"`
		Metadata struct {
			Title string `json:"title"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(w.run("conversation", "ls", "--format", "json")), &list); err != nil {
		t.Fatal(err)
	}
	var alpha string
	for _, c := range list {
		if strings.Contains(c.Metadata.Title, "alpha") {
			alpha = c.ID
		}
	}
	if alpha == "" {
		t.Fatalf("no alpha conversation in %+v", list)
	}

	p := w.startJP("c", "use", "?")
	scr := p.waitFor("beta about lunch")
	if !strings.Contains(scr, "alpha about builds") {
		t.Fatalf("the picker does not list both conversations:\n%s", scr)
	}
	// The list starts filtering: what is typed narrows it.
	p.literal("alpha")
	p.waitUntil("only alpha listed", func(s string) bool {
		return strings.Contains(s, "alpha about builds") && !strings.Contains(s, "beta about lunch")
	})
	p.keys("Enter")
	// Enter picks (with huh a first Enter may only close the filter).
	p.keys("Enter")
	if code := p.exitCode(); code != 0 {
		t.Fatalf("jp exited with %d; the screen shows:\n%s", code, p.screen())
	}
	// What jp printed after the picker may be cleared with it; the
	// record is what counts: alpha is now active.
	if out := w.run("c", "show", "."); !strings.Contains(out, "alpha about builds") {
		t.Fatalf("jp c show . after picking alpha:\n%s", out)
	}
}
