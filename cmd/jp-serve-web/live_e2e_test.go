package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/jpcli/jp/domain/draft"
)

// liveScript is the scripted model of TestWebLive's workspace: a turn
// per response, in order.
const liveScript = `{ "responses": [
  { "events": [ {"text": "first answer"} ] },
  { "events": [ {"text": "the terminal is thinking. "}, {"sleep_ms": 4000}, {"text": "terminal done"} ] },
  { "events": [ {"text": "a slow answer. "}, {"sleep_ms": 3000}, {"text": "slow done"} ] },
  { "events": [ {"text": "got the queued reply"} ] }
] }`

// TestWebLive: a turn run by jp q in a terminal (a subprocess of the real
// jp, on the demo model) shows live in an open page of the conversation,
// without a reload: the terminal's message while its turn still runs,
// then the answer. Then a reply queued on the page while its own turn
// streams is sent after the countdown (interrupt.loop_countdown), as the
// terminal sends a queued reply. Then Up recalling sent messages, the
// context meter, and Compact with its preview. Last, the conversation
// removed in a terminal: the page says its watch cannot read it.
func TestWebLive(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing and CI=true: run .ci/install-deps (it installs Debian's chromium)", chromiumPath)
		}
		t.Skipf("%s is missing: install chromium (.ci/install-deps) to run the browser test", chromiumPath)
	}
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("the browser test builds jp and runs Chromium; skipped with -short (never under CI=true)")
	}
	e, b, l, lID, conv := startLive(t)
	liveTerminalTurn(t, e, b, l, conv)
	liveQueue(t, e, b, lID, conv)
	liveRecall(b)
	liveCompact(t, e, b, l, conv)
	liveLost(b, e, l, conv)
	e.interrupt()
}

// liveLost: a conversation removed in a terminal while its page is open
// is said on the page in one line (the watch keeps trying).
func liveLost(b *browser, e *env, l, conv string) {
	e.jp(l, "c", "rm", "--yes", conv)
	b.waitJS(`!document.getElementById('live').hidden && /^jp could not read this conversation to follow it: .*\(still trying\)\.$/.test(document.getElementById('live').textContent)`, "the line saying the watch cannot read the conversation")
}

// startLive makes workspace L with a scripted model and a 2 s countdown,
// a conversation from a terminal, and a page of it in jp serve web.
func startLive(t *testing.T) (e *env, b *browser, l, lID, conv string) {
	e = newEnv(t)
	l = filepath.Join(e.tmp, "L")
	e.jp(e.tmp, "init", "L")
	lID = strings.TrimSpace(e.read(filepath.Join(l, ".jp", ".id")))
	script := filepath.Join(e.tmp, "live-script.json")
	must(t, os.WriteFile(script, []byte(liveScript), 0o644))
	e.appendFile(filepath.Join(l, ".jp", "config.toml"), fmt.Sprintf(`
[assistant.model]
id = "demo/scripted"

[providers.demo]
script = %q

[interrupt.loop_countdown]
duration_secs = 2
`, script))
	if out := e.jp(l, "q", "first"); !strings.Contains(out, "first answer") {
		t.Fatalf("jp q first printed %q", out)
	}
	conv = e.lastConversation(l)

	srv := e.serve(l)
	b = newBrowser(t, e)
	b.open(srv + "/#token=" + e.token)
	b.waitJS(`location.hash === ''`, "the token taken")
	b.open(srv + "/w/" + lID + "/c/" + conv + "?root=" + urlQuery(l))
	b.waitJS(`document.getElementById('composer') !== null && [...document.querySelectorAll('.ev.msg.assistant')].some(e => e.textContent.includes('first answer'))`, "the conversation page")
	// A mark a reload would lose.
	b.do("mark the page", chromedp.Evaluate[chromedp.Void](`window.__notReloaded = true`))
	return e, b, l, lID, conv
}

// liveTerminalTurn: a turn in a terminal shows live in the open page.
func liveTerminalTurn(t *testing.T, e *env, b *browser, l, conv string) {
	// A turn in a terminal: its message shows while it still runs, then
	// its answer, in the same page.
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	term := exec.CommandContext(ctx, filepath.Join(e.bin, "jp"), "q", "-c", conv, "from the terminal")
	term.Dir, term.Env = l, e.environ
	var termOut strings.Builder
	term.Stdout, term.Stderr = &termOut, &termOut
	must(t, term.Start())
	termDone := make(chan error, 1)
	go func() { termDone <- term.Wait() }()
	b.waitJS(`[...document.querySelectorAll('.ev.msg.user')].some(e => e.textContent.includes('from the terminal'))`, "the terminal's message, live")
	select {
	case err := <-termDone:
		t.Fatalf("the terminal's turn ended (%v) before its message showed in the page: not live\n%s", err, termOut.String())
	default:
	}
	if !b.eval(`!document.getElementById('live').hidden && document.getElementById('live').textContent.includes('A turn started in another place')`) {
		t.Fatalf("the page does not say a turn runs elsewhere: %q", b.text("#live"))
	}
	// The answer as it streams in the terminal (jp checkpoints the block
	// in flight), before the turn ends.
	b.waitJS(`[...document.querySelectorAll('.ev.msg.assistant.streaming')].some(e => e.textContent.includes('the terminal is thinking.'))`, "the terminal's answer streaming, live")
	select {
	case err := <-termDone:
		t.Fatalf("the terminal's turn ended (%v) before its streaming answer showed in the page: not live\n%s", err, termOut.String())
	default:
	}
	b.shot("live-terminal-turn")
	if err := <-termDone; err != nil {
		t.Fatalf("jp q -c %s: %v\n%s", conv, err, termOut.String())
	}
	b.waitJS(`[...document.querySelectorAll('.ev.msg.assistant')].some(e => e.textContent.includes('terminal done'))`, "the terminal's answer, live")
	b.waitJS(`document.getElementById('live').hidden`, "the turn elsewhere over")
	if !b.eval(`document.querySelector('[data-event-id^="partial-"]') === null`) {
		t.Fatal("the streamed block stayed after the answer was stored")
	}
	if !b.eval(`window.__notReloaded === true`) {
		t.Fatal("the page was reloaded")
	}
}

// liveQueue: a reply queued while the page's own turn streams is sent
// after the countdown.
func liveQueue(t *testing.T, e *env, b *browser, lID, conv string) {
	// A reply queued while the page's own turn streams: sent after the
	// countdown.
	draftFile := e.draftPath(lID, conv)
	b.typeMessage("slow please")
	b.click("#send")
	b.waitJS(`document.getElementById('conv').classList.contains('running') && document.getElementById('send').textContent === 'Queue reply'`, "the turn running, Send queuing")
	b.typeMessage("queued reply")
	b.click("#send")
	b.waitJS(`document.getElementById('queue').textContent.includes('Reply queued: it is sent when this turn ends')`, "the reply queued")
	waitQuery(t, draftFile, "queued reply") // the draft is the slot
	b.waitJS(`document.getElementById('countdown') !== null && /Sending queued reply in [12]s/.test(document.getElementById('countdown').textContent)`, "the countdown")
	b.shot("live-countdown")
	b.waitJS(`[...document.querySelectorAll('.ev.msg.assistant')].some(e => e.textContent.includes('got the queued reply'))`, "the queued reply's answer")
	b.waitTurnDone()
	waitQuery(t, draftFile, "")
	if !b.eval(`[...document.querySelectorAll('.ev.msg.assistant')].some(e => e.textContent.includes('slow done')) &&
		[...document.querySelectorAll('.ev.msg.user')].some(e => e.textContent.includes('queued reply'))`) {
		t.Fatal("the slow answer or the queued message is missing")
	}
	// Each stored event shows once, though the page's own turns reach it
	// by their stream and by the watch.
	if !b.eval(`(() => { const ids = [...document.querySelectorAll('[data-event-id]')].map(e => e.dataset.eventId);
		return ids.length > 0 && new Set(ids).size === ids.length; })()`) {
		t.Fatal("an event shows twice")
	}
}

// liveRecall: Up and Down in the message box.
func liveRecall(b *browser) {
	// Up in the empty box recalls what was sent, newest first (the page's
	// and the terminal's messages of this conversation); Down goes back
	// to the box's own (empty) text.
	b.do("focus the box", chromedp.Focus(chromedp.ID("message")))
	for _, step := range []struct{ key, want string }{
		{kb.ArrowUp, "queued reply"}, {kb.ArrowUp, "slow please"}, {kb.ArrowUp, "from the terminal"},
		{kb.ArrowDown, "slow please"}, {kb.ArrowDown, "queued reply"}, {kb.ArrowDown, ""},
	} {
		b.do("press a key", chromedp.KeyEvent(step.key))
		b.waitJS(fmt.Sprintf(`document.getElementById('message').value === %q`, step.want), "the recalled "+step.want)
	}
}

// liveCompact: the context meter, and Compact with its preview.
func liveCompact(t *testing.T, e *env, b *browser, l, conv string) {
	// The context meter, and Compact: a preview of what the configured
	// rules change, then the compaction, stored in the conversation.
	b.waitJS(`/^ctx \d+(k)?\/\d+k \(\d+%\)$/.test(document.getElementById('meter').textContent)`, "the context meter")
	b.click("#compact")
	b.waitJS(`document.getElementById('compact-preview') !== null`, "the compaction preview")
	if got := b.text("#compact-preview"); !strings.Contains(got, "Compacting by conversation.compaction.rules adds 1 overlay over 4 turns") {
		t.Fatalf("preview = %q", got)
	}
	if n := countType(e.show(l, conv), "compaction"); n != 0 {
		t.Fatalf("the preview stored %d compactions", n)
	}
	b.shot("live-compact-preview")
	b.click("#compact-confirm")
	b.waitJS(`document.getElementById('compact-done') !== null`, "the compaction done")
	if n := countType(e.show(l, conv), "compaction"); n != 1 {
		t.Fatalf("%d compactions stored, want 1", n)
	}
}

// countType counts the conversation's events of a type.
func countType(s shown, typ string) int {
	n := 0
	for _, ev := range s.Events {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// waitQuery waits until the draft's query text is want ("" also when
// there is no draft). Unlike env.waitDraft it expects no meta section: the
// page wrote this draft from nothing.
func waitQuery(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		b, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if got := draft.Parse(string(b)).Query(); got == want {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("the draft holds %q, want %q", got, want)
		}
		time.Sleep(25 * time.Millisecond)
	}
}
