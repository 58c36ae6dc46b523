package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/internal/testkit"
)

// chromiumPath is where Debian's chromium package puts the browser
// (.ci/install-deps installs it).
const chromiumPath = "/usr/bin/chromium"

// waitLong bounds each wait for something that happens by itself (a page
// element, the server's port). It is generous on purpose: nothing here
// measures speed.
const waitLong = 45 * time.Second

// TestWebEndToEnd drives jp serve web in headless Chromium against the
// real jp: two checkouts of one workspace, a conversation started in a
// terminal in A, continued from the page viewing B (it runs in A), a
// refusal when a terminal turn moved the record, a dead record after A
// is deleted and its confirmation, a tool approval and Stop in another
// workspace, and a clean Ctrl-C. The message box is the conversation's
// draft (QUERY_MESSAGE.md): it starts from a terminal's draft, saves into
// it, is emptied by a send, and never overwrites a draft a terminal
// changed meanwhile.
//
// With JP_WEB_SHOTS set, it saves a screenshot of each page to
// /tmp/web-shots (or to JP_WEB_SHOTS when that is an absolute path).
func TestWebEndToEnd(t *testing.T) {
	webNeeds(t)
	e := newEnv(t)
	wsID, conv := webCheckouts(e)
	srv := e.serve(e.a)
	w := &webRun{t: t, e: e, b: newBrowser(t, e), srv: srv, wsID: wsID, conv: conv}
	w.tokenAndWorkspaces()
	w.conversationsOfB()
	w.sendFromTheDraft()
	w.noTokenLeaks()
	w.draftConflict()
	w.movedRecord()
	w.deadRecord()
	w.toolApproval()
	w.stopTurn()

	// Ctrl-C: jp relays shutdown, the server closes, jp exits 0.
	e.interrupt()
}

// webNeeds skips (or, under CI=true, fails) without Chromium, and skips
// with -short outside CI.
func webNeeds(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing and CI=true: run .ci/install-deps (it installs Debian's chromium)", chromiumPath)
		}
		t.Skipf("%s is missing: install chromium (.ci/install-deps) to run the browser test", chromiumPath)
	}
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("the browser test builds jp and runs Chromium; skipped with -short (never under CI=true)")
	}
}

// webCheckouts makes two checkouts A and B of one workspace, a second
// workspace D with a scripted model and an "ask" tool, and a
// conversation from a terminal in A. It returns the workspace's ID and
// the conversation's.
func webCheckouts(e *env) (wsID, conv string) {
	t := e.t
	t.Helper()
	e.jp(e.tmp, "init", "A")
	wsID = strings.TrimSpace(e.read(filepath.Join(e.a, ".jp", ".id")))
	must(t, os.MkdirAll(filepath.Join(e.b, ".jp"), 0o755))
	must(t, os.WriteFile(filepath.Join(e.b, ".jp", ".id"), []byte(wsID+"\n"), 0o644))
	e.jp(e.b, "conversation", "ls") // registers B
	e.jp(e.tmp, "init", "D")
	script, err := filepath.Abs("testdata/tool-script.json")
	must(t, err)
	e.appendFile(filepath.Join(e.d, ".jp", "config.toml"), fmt.Sprintf(`
[assistant.model]
id = "demo/scripted"

[providers.demo]
script = %q

[conversation.tools.echo]
command = ["sh", "-c", "cat"]
run = "ask"
description = "Echo the arguments back"
`, script))
	if out := e.jp(e.a, "q", "hello"); !strings.Contains(out, "You said: hello") {
		t.Fatalf("jp q hello printed %q", out)
	}
	conv = e.lastConversation(e.a)
	return wsID, conv
}

// webRun is the state TestWebEndToEnd passes between its steps, one
// story in order.
type webRun struct {
	t                          *testing.T
	e                          *env
	b                          *browser
	srv, wsID, conv, draftFile string
	row                        string // the conversation's row in B's list
}

// tokenAndWorkspaces: the page without the token shows nothing; with
// it, the workspaces page shows the workspace and both checkouts.
func (w *webRun) tokenAndWorkspaces() {
	t, e, b, srv, wsID := w.t, w.e, w.b, w.srv, w.wsID
	t.Helper()
	// Without its token the server shows nothing.
	b.open(srv + "/")
	if got := b.text("body"); !strings.Contains(got, "needs its token") || strings.Contains(got, wsID) {
		t.Fatalf("the page without the token = %q", got)
	}
	// The printed address, token in its fragment: the page keeps it in
	// the tab's sessionStorage, sends it as a header, and drops it from
	// the address bar. No cookie is set.
	b.open(srv + "/#token=" + e.token)
	b.waitJS(`location.hash === '' && location.search === '' && location.pathname === '/'`, "the address without the token")

	// The workspaces page: the workspace with both checkouts, launched here.
	b.waitJS(fmt.Sprintf(`document.querySelector('#ws-%s.launch') !== null`, wsID), "the launch workspace, highlighted")
	card := b.text(fmt.Sprintf(`#ws-%s`, wsID))
	for _, want := range []string{e.a, e.b, "launched here", wsID} {
		if !strings.Contains(card, want) {
			t.Fatalf("workspace card lacks %q:\n%s", want, card)
		}
	}
	b.shot("workspaces")
}

// conversationsOfB: B's list shows the conversation from A, "in A".
func (w *webRun) conversationsOfB() {
	t, e, b, wsID, conv := w.t, w.e, w.b, w.wsID, w.conv
	t.Helper()
	// B's conversations: the one from A, "in A".
	b.follow(fmt.Sprintf(`//section[@id="ws-%s"]//a[code[text()=%q]]`, wsID, e.b))
	w.row = fmt.Sprintf(`tr[data-conversation="%s"]`, conv)
	row := w.row
	b.waitJS(fmt.Sprintf(`document.querySelector('%s') !== null`, row), "the conversation row")
	if where := b.text(row + " td.where"); where != "in "+e.a {
		t.Fatalf("B's list says the conversation last ran %q, want %q", where, "in "+e.a)
	}
	b.shot("conversations")
}

// sendFromTheDraft: the message box starts from a terminal's draft,
// saves into it, and a send (run in A, streamed) empties it.
func (w *webRun) sendFromTheDraft() {
	t, e, b, wsID, conv := w.t, w.e, w.b, w.wsID, w.conv
	t.Helper()
	// The message box is the conversation's draft: a draft left in a
	// terminal (QUERY_MESSAGE.md, with a meta section) is in the box.
	w.draftFile = e.draftPath(wsID, conv)
	draftFile := w.draftFile
	e.writeDraft(draftFile, "draft from the terminal\n\nsecond line")

	// Open it and send: it continues in A, and the answer streams in.
	b.follow(fmt.Sprintf(`//tr[@data-conversation=%q]//a[@class="title"]`, conv))
	b.waitJS(`document.getElementById('continuing') !== null`, "the continuing-in line")
	if got := b.text("#continuing"); !strings.Contains(got, "Continuing in "+e.a) {
		t.Fatalf("continuing line = %q", got)
	}
	if !b.eval(`document.getElementById('message').value === 'draft from the terminal\n\nsecond line'`) {
		t.Fatal("the box does not start with the conversation's draft")
	}
	b.shot("conversation-draft")
	// What is typed is saved into the draft, its meta section kept.
	b.watchStreaming()
	b.typeMessage("web message one")
	e.waitDraft(draftFile, "web message one")
	b.click("#send")
	b.waitTurnDone()
	// The turn started: the draft is emptied, and so is the browser's copy.
	e.waitDraft(draftFile, "")
	if !b.eval(fmt.Sprintf(`localStorage.getItem('jp-web-draft:%s:%s') === null`, wsID, conv)) {
		t.Fatal("the browser still keeps a copy of the sent message")
	}
	b.waitJS(`[...document.querySelectorAll('.ev.msg.assistant:not(.streaming)')].some(e => e.textContent.includes('You said: web message one'))`, "the streamed answer")
	if !b.eval(`window.__sawStreaming === true`) {
		t.Fatal("no streamed piece of the answer was shown before the answer was complete")
	}
	b.shot("conversation")
	if root := e.lastTurnRoot(e.b, conv); root != e.a {
		t.Fatalf("the web turn ran in %q, want %q (the last root)", root, e.a)
	}
}

// noTokenLeaks: another server on 127.0.0.1 never receives the token
// or a cookie, from a link in an answer or another tab.
func (w *webRun) noTokenLeaks() {
	t, e, b, draftFile := w.t, w.e, w.b, w.draftFile
	t.Helper()
	// Another server on 127.0.0.1, another port: cookies are not told
	// apart by port, so a token in a cookie would reach it. A link in an
	// answer opens it in a new tab, without a Referer; then the tab itself
	// goes there. It never receives the token, nor any cookie.
	other := newSpy(t)
	link := other.URL + "/from-an-answer"
	b.typeMessage("see [the other server](" + link + ")")
	b.click("#send")
	b.waitTurnDone()
	e.waitDraft(draftFile, "")
	a := fmt.Sprintf(`.ev.msg.assistant a[href=%q]`, link)
	b.waitJS(fmt.Sprintf(`document.querySelector('%s') !== null`, a), "the link in the answer")
	if !b.eval(fmt.Sprintf(`(() => { const a = document.querySelector('%s');
		return a.rel === 'noreferrer noopener' && a.target === '_blank' && !a.href.includes(%q); })()`, a, e.token)) {
		t.Fatal("the answer's link does not open with rel=\"noreferrer noopener\" and target=_blank")
	}
	if !b.eval(`document.cookie === ''`) {
		t.Fatal("the page has cookies")
	}
	b.click(a)
	other.check(t, e.token, "/from-an-answer")
	// The link opened a tab in front of this one: a hidden tab gets no
	// animation frames, which the waits below need.
	b.do("bring the page to front", func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, page.BringToFront, cdp.Empty{})
		return chromedp.Void{}, err
	})
	// Another tab of the same browser goes there too.
	tab, closeTab := chromedp.NewContext(b.ctx)
	tctx, cancel := context.WithTimeout(tab, waitLong)
	must(t, chromedp.Do(tctx, chromedp.Navigate(other.URL+"/visited")))
	cancel()
	closeTab()
	other.check(t, e.token, "/visited")
}

// draftConflict: a draft changed in a terminal after the page saved
// it is not overwritten; the page keeps its text and offers it after
// a reload.
func (w *webRun) draftConflict() {
	t, e, b, wsID, conv, draftFile := w.t, w.e, w.b, w.wsID, w.conv, w.draftFile
	t.Helper()
	// The draft changes in a terminal after the page saved it: the page
	// does not overwrite it, says so, and keeps its text (in the box and
	// in the browser).
	b.typeMessage("browser draft")
	e.waitDraft(draftFile, "browser draft")
	e.writeDraft(draftFile, "terminal rewrite")
	b.do("type more", chromedp.SendKeys(chromedp.ID("message"), " more"))
	b.waitJS(`!document.getElementById('draft-notice').hidden &&
		document.getElementById('draft-notice').textContent.includes('The draft changed in another place (a terminal?): reload to see it; your text stays here.')`, "the draft conflict")
	b.shot("draft-conflict")
	if !b.eval(fmt.Sprintf(`document.getElementById('message').value === 'browser draft more' &&
		localStorage.getItem('jp-web-draft:%s:%s') === 'browser draft more'`, wsID, conv)) {
		t.Fatal("the text typed during a conflict is not in the box and the browser")
	}
	e.waitDraft(draftFile, "terminal rewrite")
	// A reload shows the terminal's draft and offers the browser's text;
	// taking it saves it into the draft.
	b.do("reload", chromedp.Reload())
	b.waitJS(`document.getElementById('message').value === 'terminal rewrite' && document.getElementById('draft-use') !== null`, "the terminal's draft, and the browser's text offered")
	if got := b.text("#draft-notice"); !strings.Contains(got, "browser draft more") {
		t.Fatalf("offer = %q", got)
	}
	b.shot("draft-offer")
	b.click("#draft-use")
	e.waitDraft(draftFile, "browser draft more")
	b.waitJS(`document.getElementById('draft-notice').hidden && document.getElementById('draft-status').textContent === 'Draft saved'`, "the offered text saved")
}

// movedRecord: a terminal turn in B moves the record live; choosing A
// again runs the turn in A.
func (w *webRun) movedRecord() {
	t, e, b, conv, draftFile := w.t, w.e, w.b, w.conv, w.draftFile
	t.Helper()
	// A terminal turn in B moves the record: the open page follows it
	// live (docs/web.md, "Live across frontends"), shows the terminal's
	// turn, and says the conversation now continues here, in B. (A send
	// racing the watch is refused by jp, the text kept:
	// TestQueryRefusedCarriesTheRecord.)
	e.jp(e.b, "q", "-c", conv, "moved from a terminal")
	b.waitJS(`[...document.querySelectorAll('.ev.msg.user')].some(e => e.textContent.includes('moved from a terminal'))`, "the terminal's turn, live")
	b.waitJS(`document.getElementById('continuing') === null && document.getElementById('where').textContent.includes('Continues here, where this conversation last ran.')`, "the moved record, live")
	b.typeMessage("stale message")
	e.waitDraft(draftFile, "stale message")
	b.shot("moved-live")

	// Choose A again deliberately, and send: it runs in A.
	b.click("#choose")
	b.click(fmt.Sprintf(`//input[@name="target" and @value=%q]`, e.a))
	b.click("#send")
	b.waitTurnDone()
	b.waitJS(`[...document.querySelectorAll('.ev.msg.assistant')].some(e => e.textContent.includes('You said: stale message'))`, "the answer run in A")
	e.waitDraft(draftFile, "")
	if root := e.lastTurnRoot(e.b, conv); root != e.a {
		t.Fatalf("the picked turn ran in %q, want %q", root, e.a)
	}
}

// deadRecord: after A is deleted, the record is dead, and confirming runs the turn in B.
func (w *webRun) deadRecord() {
	t, e, b, srv, wsID, conv, row := w.t, w.e, w.b, w.srv, w.wsID, w.conv, w.row
	t.Helper()
	// Delete A: the record is dead; confirming runs the turn here (B).
	must(t, os.RemoveAll(e.a))
	b.open(srv + "/w/" + wsID + "?root=" + urlQuery(e.b))
	b.waitJS(fmt.Sprintf(`document.querySelector('%s td.where.gone') !== null`, row), "the dead record in the list")
	if where := b.text(row + " td.where"); where != "last ran in a worktree that no longer exists" {
		t.Fatalf("list says %q", where)
	}
	b.follow(fmt.Sprintf(`//tr[@data-conversation=%q]//a[@class="title"]`, conv))
	b.waitJS(`document.getElementById('gone') !== null`, "the dead-record warning")
	if got := b.text("#gone"); !strings.Contains(got, e.a) || !strings.Contains(got, "a worktree that no longer exists") {
		t.Fatalf("warning = %q", got)
	}
	b.shot("gone")
	b.typeMessage("after A is gone")
	b.click("#confirm-here")
	b.click("#send")
	b.waitTurnDone()
	b.waitJS(`[...document.querySelectorAll('.ev.msg.assistant')].some(e => e.textContent.includes('You said: after A is gone'))`, "the confirmed turn's answer")
	if lr := e.lastRoot(e.b, conv); lr != e.b {
		t.Fatalf("after confirming, the record names %q, want %q", lr, e.b)
	}
}

// toolApproval: a conversation made on the page in workspace D
// approves two tool calls, the second with its diff.
func (w *webRun) toolApproval() {
	t, e, b, srv := w.t, w.e, w.b, w.srv
	t.Helper()
	// A tool approval in workspace D, in a conversation made on the page.
	dID := strings.TrimSpace(e.read(filepath.Join(e.d, ".jp", ".id")))
	b.open(srv + "/")
	b.follow(fmt.Sprintf(`//section[@id="ws-%s"]//a[code[text()=%q]]`, dID, e.d))
	// The page's script sends the form with the token: wait for it too (the
	// page is in place a moment before its scripts ran).
	b.waitJS(`document.querySelector('form.new') !== null && typeof window.jpFetch === 'function'`, "the new-conversation form")
	b.setValue(`form.new input[name="title"]`, "Tool test")
	b.click(`form.new button`) // sent by the page's script, with the token
	b.waitJS(`document.getElementById('composer') !== null && document.querySelector('h1').textContent === 'Tool test'`, "the new conversation")
	b.typeMessage("use the tool")
	b.click("#send")
	b.waitJS(`document.querySelector('.ev.approval button.approve') !== null`, "the tool approval")
	if got := b.text(".ev.approval"); !strings.Contains(got, "echo") || !strings.Contains(got, "ping from the web") {
		t.Fatalf("approval = %q", got)
	}
	b.shot("approval")
	b.click(`[data-approval="call_0_0"] button.approve`)
	// Then the built-in fs_create_file (jp init enables it) asks, with the
	// diff it will apply, coloured line by line.
	b.waitJS(`document.querySelector('[data-approval="call_0_1"] pre.diff') !== null`, "the write tool's approval with its diff")
	if got := b.text(`[data-approval="call_0_1"] pre.diff`); !strings.Contains(got, "--- /dev/null") || !strings.Contains(got, "+++ b/web.txt") || !strings.Contains(got, "+made on the web") {
		t.Fatalf("approval diff = %q", got)
	}
	if got := b.text(`[data-approval="call_0_1"] pre.diff span.add`); got != "+made on the web" {
		t.Fatalf("added line = %q", got)
	}
	b.shot("approval-diff")
	b.click(`[data-approval="call_0_1"] button.approve`)
	b.waitTurnDone()
	if got := e.read(filepath.Join(e.d, "web.txt")); got != "made on the web\n" {
		t.Fatalf("web.txt = %q", got)
	}
	b.waitJS(`[...document.querySelectorAll('.ev.tool.result')].some(e => e.textContent.includes('ping from the web'))`, "the tool result")
	b.waitJS(`[...document.querySelectorAll('.ev.msg.assistant')].some(e => e.textContent.includes('The tool answered'))`, "the answer after the tool")
	if got := b.text(".ev.approval .answer"); got != "Approved" {
		t.Fatalf("approval answer shown as %q", got)
	}
	b.shot("tool-result")
}

// stopTurn: a reload follows a running turn, and Stop stops it.
func (w *webRun) stopTurn() {
	t, b := w.t, w.b
	t.Helper()
	// Stop: a long answer, stopped once it streams.
	b.typeMessage("a long one")
	b.click("#send")
	b.waitJS(`document.querySelector('.ev.msg.assistant.streaming') !== null`, "the long answer streaming")
	// A reload in the middle of the turn follows it again.
	b.do("reload", chromedp.Reload())
	b.waitJS(`document.getElementById('conv').classList.contains('running') && !document.getElementById('stop').hidden &&
		document.querySelector('.ev.msg.assistant.streaming') !== null`, "the reloaded page following the running turn")
	b.click("#stop")
	b.waitTurnDone()
	b.waitJS(`document.querySelector('.ev.turn-end.stopped') !== null`, "the stopped turn's end")
	if got := b.text("#notice"); !strings.Contains(got, "Turn stopped") {
		t.Fatalf("notice after Stop = %q", got)
	}
	b.shot("stopped")
}

// env is the test's jp installation and directories.
type env struct {
	t          *testing.T
	tmp        string
	dataHome   string // $XDG_DATA_HOME
	bin        string
	a, b, d    string
	environ    []string
	port       int
	server     *exec.Cmd
	serverDone chan struct{} // closed when jp serve web exited
	serverErr  error         // its Wait error, once serverDone is closed
	out, errs  *testkit.SyncBuffer
	token      string // the token in the address jp serve web printed
}

func newEnv(t *testing.T) *env {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	e := &env{t: t, tmp: tmp, bin: filepath.Join(tmp, "bin"),
		a: filepath.Join(tmp, "A"), b: filepath.Join(tmp, "B"), d: filepath.Join(tmp, "D")}
	root := moduleRoot(t)
	e.build(root, "./cmd/jp", "jp")
	e.build(root, "./cmd/jp-serve-web", "jp-serve-web")
	manifest, err := os.ReadFile("jp-serve-web.manifest.json")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(e.bin, "jp-serve-web.manifest.json"), manifest, 0o644))

	e.port = freePort(t)
	home := filepath.Join(tmp, "home")
	e.dataHome = filepath.Join(home, "XDG_DATA_HOME")
	for _, k := range []string{"XDG_DATA_HOME", "XDG_CONFIG_HOME"} {
		must(t, os.MkdirAll(filepath.Join(home, k), 0o755))
	}
	e.environ = []string{
		"PATH=" + e.bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_DATA_HOME=" + filepath.Join(home, "XDG_DATA_HOME"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "XDG_CONFIG_HOME"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"LANG=C.UTF-8",
	}
	cfg := filepath.Join(home, "XDG_CONFIG_HOME", "jp", "config.toml")
	must(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
	must(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`
[plugins.command.serve-web]
run = "unattended"
options = { port = %d }
`, e.port)), 0o644))
	return e
}

func (e *env) build(root, pkg, name string) {
	e.t.Helper()
	cmd := exec.Command("go", "build", "-o", filepath.Join(e.bin, name), pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
}

// jp runs a jp command to its end and returns its stdout.
func (e *env) jp(dir string, args ...string) string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(e.bin, "jp"), args...)
	cmd.Dir, cmd.Env = dir, e.environ
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("jp %s (in %s): %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), dir, err, out.String(), errb.String())
	}
	return out.String()
}

func (e *env) read(path string) string {
	e.t.Helper()
	b, err := os.ReadFile(path)
	must(e.t, err)
	return string(b)
}

func (e *env) appendFile(path, text string) {
	e.t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	must(e.t, err)
	_, err = f.WriteString(text)
	must(e.t, errors.Join(err, f.Close()))
	if dir := filepath.Dir(path); filepath.Base(path) == "config.toml" && filepath.Base(dir) == ".jp" {
		// The test's own workspace: trusted explicitly, as a user trusts
		// a checkout whose configuration they wrote.
		e.jp(filepath.Dir(dir), "workspace", "trust")
	}
}

// draftMeta is the meta section the test's hand-written drafts carry:
// saves from the page must keep it byte for byte.
const draftMeta = draft.CutLine + "\n\n(an excerpt of the conversation, kept byte for byte)\n"

// draftPath is the conversation's draft, QUERY_MESSAGE.md in the
// workspace's user-local directory.
func (e *env) draftPath(wsID, conv string) string {
	e.t.Helper()
	dirs, err := filepath.Glob(filepath.Join(e.dataHome, "jp", "workspace", "*-"+wsID, "conversations", conv))
	must(e.t, err)
	if len(dirs) != 1 {
		e.t.Fatalf("conversation %s of workspace %s: directories %v", conv, wsID, dirs)
	}
	return filepath.Join(dirs[0], "QUERY_MESSAGE.md")
}

// writeDraft writes a draft as a terminal would: the query text, then the
// meta section.
func (e *env) writeDraft(path, query string) {
	e.t.Helper()
	must(e.t, os.WriteFile(path, []byte(query+"\n"+draftMeta), 0o600))
}

// waitDraft waits until the draft's query text is want ("" also when
// there is no draft), with its meta section intact when it has one.
func (e *env) waitDraft(path, want string) {
	e.t.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		b, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			e.t.Fatal(err)
		}
		doc := draft.Parse(string(b))
		if doc.Query() == want {
			if len(b) > 0 && !strings.HasSuffix(string(b), draftMeta) {
				e.t.Fatalf("the draft lost its meta section:\n%s", b)
			}
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the draft holds %q, want %q\nfile:\n%s\nstderr: %s", doc.Query(), want, b, e.errs)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// shown is jp conversation show --format json, as far as the test reads it.
type shown struct {
	ID       string `json:"id"`
	LastRoot *struct {
		Path string `json:"path"`
		Live bool   `json:"live"`
	} `json:"last_root"`
	Events []struct {
		Type string `json:"type"`
		Root string `json:"root"`
	} `json:"events"`
}

func (e *env) lastConversation(dir string) string {
	e.t.Helper()
	var list []shown
	must(e.t, json.Unmarshal([]byte(e.jp(dir, "conversation", "ls", "--format", "json")), &list))
	if len(list) == 0 {
		e.t.Fatal("no conversation")
	}
	return list[0].ID
}

func (e *env) show(dir, conv string) shown {
	e.t.Helper()
	var s shown
	must(e.t, json.Unmarshal([]byte(e.jp(dir, "conversation", "show", conv, "--format", "json")), &s))
	return s
}

// lastTurnRoot is the root of the conversation's last turn_start.
func (e *env) lastTurnRoot(dir, conv string) string {
	e.t.Helper()
	root := ""
	for _, ev := range e.show(dir, conv).Events {
		if ev.Type == "turn_start" {
			root = ev.Root
		}
	}
	return root
}

func (e *env) lastRoot(dir, conv string) string {
	e.t.Helper()
	s := e.show(dir, conv)
	if s.LastRoot == nil {
		return ""
	}
	return s.LastRoot.Path
}

// serve starts jp serve web in dir and waits for its URL and its port.
func (e *env) serve(dir string) string {
	e.t.Helper()
	e.out, e.errs = &testkit.SyncBuffer{}, &testkit.SyncBuffer{}
	e.server = exec.Command(filepath.Join(e.bin, "jp"), "serve", "web")
	e.server.Dir, e.server.Env = dir, e.environ
	e.server.Stdout, e.server.Stderr = e.out, e.errs
	// Its own process group, so a cleanup can kill jp and the plugin; and
	// Wait returns once jp is gone even if a child still holds the pipes.
	e.server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	e.server.WaitDelay = 5 * time.Second
	must(e.t, e.server.Start())
	e.serverDone = make(chan struct{})
	go func() {
		e.serverErr = e.server.Wait()
		close(e.serverDone)
	}()
	e.t.Cleanup(func() {
		select {
		case <-e.serverDone:
			return
		default:
		}
		_ = e.server.Process.Signal(syscall.SIGINT)
		select {
		case <-e.serverDone:
		case <-time.After(waitLong):
			e.t.Errorf("jp serve web did not end after Ctrl-C: killed\nstderr: %s", e.errs)
			_ = syscall.Kill(-e.server.Process.Pid, syscall.SIGKILL)
			<-e.serverDone
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d/", e.port)
	deadline := time.Now().Add(waitLong)
	for {
		select {
		case <-e.serverDone:
			e.t.Fatalf("jp serve web ended early: %v\nstdout: %s\nstderr: %s", e.serverErr, e.out, e.errs)
		default:
		}
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", e.port))
		if err == nil {
			_ = c.Close()
			m := regexp.MustCompile(`jp serve web: ` + regexp.QuoteMeta(url) + `#token=([0-9a-f]{64})\n`).FindStringSubmatch(e.out.String())
			if m != nil {
				e.token = m[1]
				return strings.TrimSuffix(url, "/")
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("jp serve web did not listen on %s and print its URL\nstdout: %s\nstderr: %s", url, e.out, e.errs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// interrupt sends Ctrl-C to jp and checks it ends as after any Ctrl-C,
// with the server's port closed.
func (e *env) interrupt() {
	e.t.Helper()
	must(e.t, e.server.Process.Signal(syscall.SIGINT))
	select {
	case <-e.serverDone:
	case <-time.After(waitLong):
		e.t.Fatalf("jp serve web did not end after Ctrl-C\nstderr: %s", e.errs)
	}
	// The plugin answers shutdown by exiting 0, a clean stop: jp exits 0
	// (docs/plugins.md).
	if e.serverErr != nil {
		e.t.Fatalf("jp serve web after Ctrl-C: %v (want exit status 0: the plugin stopped cleanly)\nstderr: %s", e.serverErr, e.errs)
	}
	if strings.Contains(e.errs.String(), "ended without sending exit") {
		e.t.Fatalf("the plugin did not send exit:\n%s", e.errs)
	}
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", e.port)); err == nil {
		_ = c.Close()
		e.t.Fatal("the port is still open after jp exited")
	}
}

// browser is one headless Chromium tab.
type browser struct {
	t     *testing.T
	ctx   context.Context
	shots string

	mu         sync.Mutex
	exceptions []string
}

func newBrowser(t *testing.T, e *env) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(filepath.Join(e.tmp, "chromium-profile")),
		chromedp.WindowSize(1200, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	b := &browser{t: t, ctx: ctx}
	if dir := os.Getenv("JP_WEB_SHOTS"); dir != "" {
		if !filepath.IsAbs(dir) {
			dir = "/tmp/web-shots"
		}
		must(t, os.MkdirAll(dir, 0o755))
		b.shots = dir
	}
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		cancelTab()
		cancelAlloc()
		t.Fatalf("start %s: %v", chromiumPath, err)
	}
	// Uncaught exceptions of the page fail the test at its end.
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() {
				b.mu.Lock()
				b.exceptions = append(b.exceptions, m.String())
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		<-done
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, ex := range b.exceptions {
			t.Errorf("the page threw: %s", ex)
		}
	})
	return b
}

func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLong)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.fail(what, err)
	}
}

// fail reports a failed step with what the page shows.
func (b *browser) fail(what string, err error) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
	b.t.Fatalf("%s: %v\npage: %s", what, err, page)
}

func (b *browser) open(url string) { b.t.Helper(); b.do("open "+url, chromedp.Navigate(url)) }

func (b *browser) click(sel string) {
	b.t.Helper()
	b.do("click "+sel, chromedp.Click(sel))
}

// follow clicks a link or a submit button and waits for the page it
// loads.
func (b *browser) follow(sel string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLong)
	defer cancel()
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(sel)); err != nil {
		b.fail("follow "+sel, err)
	}
}

func (b *browser) setValue(sel, v string) {
	b.t.Helper()
	b.do("fill "+sel, chromedp.SetValue(chromedp.CSS(sel), v))
}

// typeMessage replaces the message box's text by typing.
func (b *browser) typeMessage(text string) {
	b.t.Helper()
	b.do("type a message",
		chromedp.Evaluate[chromedp.Void](`document.getElementById('message').value = ''`),
		chromedp.SendKeys(chromedp.ID("message"), text))
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLong)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.fail("read "+sel, err)
	}
	return strings.TrimSpace(strings.Join(strings.Fields(s), " "))
}

func (b *browser) eval(expr string) bool {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLong)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
	if err != nil {
		b.fail("evaluate "+expr, err)
	}
	return v
}

// waitJS waits until expr is true on the page.
func (b *browser) waitJS(expr, what string) {
	b.t.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		ctx, cancel := context.WithTimeout(b.ctx, waitLong+5*time.Second)
		// A page is first the boot page (it fetches the page with the
		// token): what it lacks yet is "not yet", not an error.
		safe := "(() => { try { return !!(" + expr + "); } catch (e) { return false; } })()"
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](safe, chromedp.WithPollingTimeout(time.Until(deadline))))
		cancel()
		switch {
		case err == nil:
			return
		case time.Now().Before(deadline) && (strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "context was destroyed") ||
			strings.Contains(err.Error(), "Inspected target navigated")):
			continue // a page was loading: ask the new one
		}
		b.fail("wait for "+what, err)
	}
}

// waitTurnDone waits until the page is not following a turn.
func (b *browser) waitTurnDone() {
	b.t.Helper()
	b.waitJS(`!document.getElementById('conv').classList.contains('running') && !document.getElementById('send').disabled`, "the turn to end")
}

// watchStreaming records whether a streaming (not yet complete) answer
// block was ever on the page.
func (b *browser) watchStreaming() {
	b.t.Helper()
	b.do("watch for streamed text", chromedp.Evaluate[chromedp.Void](`
		window.__sawStreaming = false;
		new MutationObserver(() => {
			const s = document.querySelector('.ev.msg.assistant.streaming .body');
			if (s && s.textContent.length > 0) window.__sawStreaming = true;
		}).observe(document.getElementById('events'), { childList: true, subtree: true, characterData: true });
		true`))
}

// shot saves a screenshot when JP_WEB_SHOTS is set.
func (b *browser) shot(name string) {
	b.t.Helper()
	if b.shots == "" {
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, waitLong)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.fail("screenshot "+name, err)
	}
	must(b.t, os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644))
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	must(t, err)
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		t.Fatal("not inside the jp module")
	}
	return filepath.Dir(mod)
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	must(t, ln.Close())
	return port
}

func urlQuery(s string) string {
	return strings.NewReplacer("%", "%25", "/", "%2F", " ", "%20", "&", "%26", "+", "%2B", "#", "%23", "?", "%3F").Replace(s)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// spy is another local server the browser visits: it records every
// request it gets.
type spy struct {
	*httptest.Server
	got chan *http.Request
}

func newSpy(t *testing.T) *spy {
	t.Helper()
	s := &spy{got: make(chan *http.Request, 16)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.got <- r.Clone(context.Background()):
		default:
		}
		_, _ = io.WriteString(w, "another server")
	}))
	t.Cleanup(s.Close)
	return s
}

// check waits for the request for path and fails if it carries the
// token anywhere (address, any header) or any cookie or Referer.
func (s *spy) check(t *testing.T, token, path string) {
	t.Helper()
	timeout := time.After(waitLong)
	for {
		select {
		case r := <-s.got:
			if r.URL.Path != path {
				continue // the browser's favicon request, say
			}
			if strings.Contains(r.URL.String(), token) {
				t.Errorf("the other server got the token in the address %s", r.URL)
			}
			for name, vals := range r.Header {
				for _, v := range vals {
					if strings.Contains(v, token) {
						t.Errorf("the other server got the token in %s: %s", name, v)
					}
				}
			}
			if c := r.Header.Get("Cookie"); c != "" {
				t.Errorf("the other server got cookies: %s", c)
			}
			if ref := r.Header.Get("Referer"); ref != "" {
				t.Errorf("the other server got a Referer: %s", ref)
			}
			return
		case <-timeout:
			t.Fatalf("the browser never asked the other server for %s", path)
		}
	}
}
