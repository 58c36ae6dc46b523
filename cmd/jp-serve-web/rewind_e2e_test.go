package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWebTrustRewind: in a checkout whose configuration changed after jp
// init (an attachment added: a key that sends data), the conversation page
// shows the trust banner; Trust asks, then trusts the checkout as jp
// workspace trust does. A turn's Rewind shows the dry run, then rewinds:
// the conversation is forked before the turn and the page opens the fork.
func TestWebTrustRewind(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing and CI=true: run .ci/install-deps (it installs Debian's chromium)", chromiumPath)
		}
		t.Skipf("%s is missing: install chromium (.ci/install-deps) to run the browser test", chromiumPath)
	}
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("the browser test builds jp and runs Chromium; skipped with -short (never under CI=true)")
	}
	e := newEnv(t)
	l := filepath.Join(e.tmp, "L")
	e.jp(e.tmp, "init", "L")
	lID := strings.TrimSpace(e.read(filepath.Join(l, ".jp", ".id")))
	must(t, os.WriteFile(filepath.Join(l, "notes.txt"), []byte("notes\n"), 0o644))
	// Not e.appendFile, which trusts what it wrote.
	cfg := filepath.Join(l, ".jp", "config.toml")
	must(t, os.WriteFile(cfg, []byte(e.read(cfg)+"\n[conversation]\nattachments = [\"notes.txt\"]\n"), 0o644))
	if trusted(t, e, l) {
		t.Fatal("the checkout is trusted with an attachment it did not have at jp init")
	}
	if out := e.jp(l, "q", "first"); strings.Contains(out, "attachment") {
		t.Fatalf("the untrusted checkout's attachment was sent: %q", out)
	}
	conv := e.lastConversation(l)

	srv := e.serve(l)
	b := newBrowser(t, e)
	b.open(srv + "/#token=" + e.token)
	b.waitJS(`location.hash === ''`, "the token taken")
	b.open(srv + "/w/" + lID + "/c/" + conv + "?root=" + urlQuery(l))
	b.waitJS(`document.getElementById('trust-untrusted') !== null`, "the trust banner")
	if got := b.text("#trust-panel"); !strings.Contains(got, "not trusted") || !strings.Contains(got, "[conversation.attachments]") {
		t.Fatalf("banner = %q", got)
	}
	b.click("#trust")
	b.waitJS(`document.getElementById('trust-confirm') !== null`, "the trust question")
	if trusted(t, e, l) {
		t.Fatal("trusted before the confirmation")
	}
	b.click("#trust-confirm")
	b.waitJS(`document.getElementById('trust-done') !== null`, "the trust done")
	if !trusted(t, e, l) {
		t.Fatalf("not trusted after Trust: %s", b.text("#trust-panel"))
	}

	b.click(".ev.turn .rewind")
	b.waitJS(`document.getElementById('rewind-preview') !== null`, "the rewind's dry run")
	if got := b.text("#rewind-preview"); !strings.Contains(got, "Rewind to turn 0: undo turn 1") {
		t.Fatalf("preview = %q", got)
	}
	if e.lastConversation(l) != conv {
		t.Fatal("the dry run changed the active conversation")
	}
	b.click("#rewind-confirm")
	b.waitJS(`!location.pathname.endsWith('/c/`+conv+`') && document.getElementById('composer') !== null`, "the fork's page")
	if fork := e.lastConversation(l); fork == conv || !b.eval(`location.pathname.endsWith('/c/`+fork+`')`) {
		t.Fatalf("the page does not show the fork %s", fork)
	}
	e.interrupt()
}

// trusted reads jp workspace trust --show --format json in dir.
func trusted(t *testing.T, e *env, dir string) bool {
	t.Helper()
	var r struct {
		Trusted bool `json:"trusted"`
	}
	must(t, json.Unmarshal([]byte(e.jp(dir, "workspace", "trust", "--show", "--format", "json")), &r))
	return r.Trusted
}
