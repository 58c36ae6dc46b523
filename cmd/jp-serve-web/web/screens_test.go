package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// chromiumPath is where Debian's chromium package puts the browser
// (.ci/install-deps installs it).
const chromiumPath = "/usr/bin/chromium"

// screenWait bounds each wait on the browser; nothing here measures speed.
const screenWait = 45 * time.Second

// Screenshots are compared with their reference images (testdata/screens)
// within a tolerance: at most maxDiffShare of the pixels may differ, a
// pixel differing when one of its channels is off by more than
// channelSlack (font rasterising varies a little between builds).
const (
	maxDiffShare = 0.005
	channelSlack = 24
)

// screenWidths are the widths the page is checked at: a phone, a tablet,
// a laptop.
var screenWidths = []int{390, 768, 1280}

// screenConv is the fixed conversation the screenshots show.
const screenConv = "17127583920"

// screenFixture is jp holding one conversation with everything the page
// draws: a user message, an answer with a table and a code block, a file
// edit with its diff, a long tool result, a tool error and a final answer.
// Its times and IDs are fixed.
func screenFixture() *fakeHost {
	f := fixture()
	f.workspaces = []plugin.WorkspaceEntry{{ID: "a1b2c3d", Slug: "proj", Launch: true,
		Roots: []plugin.WorkspaceRoot{{Path: "/src/a", Storage: "/src/a/.jp", LastUsed: t0}}}}
	f.convs = map[string][]plugin.ConversationSummary{"/src/a": {{ID: screenConv, Title: "Greeting change",
		LastActivatedAt: t0, EventsCount: 12, LastRoot: recHereA}}}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	var long strings.Builder
	for i := 1; i <= 32; i++ {
		fmt.Fprintf(&long, "greet.txt:%d: hello world, line %d of a long tool result that goes on well past the width of a phone\n", i, i)
	}
	f.events[screenConv] = plugin.Events{LastRoot: recHereA, Data: asStored([]conversation.Event{
		{Type: conversation.EventTypeTurnStart, ID: "e1", Timestamp: at(0), Root: "/src/a"},
		{Type: conversation.EventTypeChatRequest, ID: "e2", Timestamp: at(0), Author: "user",
			Content: "Change the greeting in greet.txt to say hello to jp, and show me what the files hold."},
		{Type: conversation.EventTypeChatResponse, ID: "e3", Timestamp: at(1), Message: "Here is what the files hold now:\n\n" +
			"| File | Holds | Lines |\n|---|---|--:|\n| greet.txt | hello world | 1 |\n| main.go | the program that prints it | 12 |\n\n" +
			"The program reads it like this:\n\n```go\nfunc main() {\n\tb, _ := os.ReadFile(\"greet.txt\")\n\tfmt.Print(string(b))\n}\n```\n\nI will change the greeting now."},
		{Type: conversation.EventTypeToolCallRequest, ID: "e4", Timestamp: at(2), CallID: "call_0_0", Name: "fs_modify_file",
			Arguments: json.RawMessage(`{"patterns":[{"old":"hello world\n","new":"hello jp\n","paths":["greet.txt"]}]}`)},
		{Type: conversation.EventTypeToolCallResponse, ID: "e5", Timestamp: at(2), CallID: "call_0_0",
			Content: "Done: modify greet.txt (1 replacement).\n\n--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-hello world\n+hello jp\n"},
		{Type: conversation.EventTypeToolCallRequest, ID: "e6", Timestamp: at(3), CallID: "call_0_1", Name: "fs_grep_files",
			Arguments: json.RawMessage(`{"pattern":"hello","paths":["."]}`)},
		{Type: conversation.EventTypeToolCallResponse, ID: "e7", Timestamp: at(3), CallID: "call_0_1", Content: long.String()},
		{Type: conversation.EventTypeToolCallRequest, ID: "e8", Timestamp: at(4), CallID: "call_0_2", Name: "fs_create_file",
			Arguments: json.RawMessage(`{"path":"notes/greeting-history.txt","content":"hello world\nhello jp\n"}`)},
		{Type: conversation.EventTypeToolCallResponse, ID: "e9", Timestamp: at(4), CallID: "call_0_2", IsError: true,
			Content: "The tool fs_create_file needs the user's permission, but there is no terminal to ask on. The user can allow it with conversation.tools.fs_create_file.run = \"unattended\" in the configuration, or run the turn where jp can ask."},
		{Type: conversation.EventTypeChatResponse, ID: "e10", Timestamp: at(5), Message: "Done: **greet.txt** now says `hello jp`. I could not write the notes file: it needs your permission."},
		{Type: conversation.EventTypeTurnEnd, ID: "e11", Timestamp: at(5), Outcome: conversation.OutcomeCompleted},
	})}
	return f
}

// screenBrowser starts headless Chromium for the screenshot tests: a
// fixed scale, colour profile and font hinting, the scroll bars hidden.
// Chromium missing skips the test, but fails it under CI=true (as the
// end-to-end test does).
func screenBrowser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing and CI=true: run .ci/install-deps (it installs Debian's chromium)", chromiumPath)
		}
		t.Skipf("%s is missing: install chromium (.ci/install-deps) to run the screenshot tests", chromiumPath)
	}
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("the screenshot tests run Chromium; skipped with -short (never under CI=true)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true), chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("font-render-hinting", "none"), chromedp.Flag("force-device-scale-factor", "1"),
		chromedp.Flag("disable-lcd-text", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "UTC"})
		return err
	})); err != nil {
		t.Fatalf("start %s: %v", chromiumPath, err)
	}
	return ctx
}

// screenServer serves the fixed conversation; the page is opened as the
// printed address is, the token in the fragment.
func screenServer(t *testing.T, f *fakeHost) (*Server, string) {
	t.Helper()
	s := New(f, func() time.Time { return t0.Add(5 * time.Minute) }, nil)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return s, ts.URL + "/w/a1b2c3d/c/" + screenConv + "?root=" + url.QueryEscape("/src/a") + "#token=" + s.Token()
}

// run runs steps on the page, failing the test with what it shows.
func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, screenWait)
	defer cancel()
	v, err := chromedp.Run(c, a)
	if err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		t.Fatalf("%s: %v\npage: %s", what, err, page)
	}
	return v
}

// waitFor waits until the JavaScript expression expr is true.
func waitFor(t *testing.T, ctx context.Context, expr, what string) {
	t.Helper()
	safe := "(() => { try { return !!(" + expr + "); } catch (e) { return false; } })()"
	deadline := time.Now().Add(screenWait)
	for {
		c, cancel := context.WithTimeout(ctx, screenWait+5*time.Second)
		_, err := chromedp.Run(c, chromedp.Poll[bool](safe, chromedp.WithPollingTimeout(time.Until(deadline))))
		cancel()
		if err == nil {
			return
		}
		// The boot page shows the page in its place: a context it had
		// is gone; ask the new one.
		if time.Now().After(deadline) || !strings.Contains(err.Error(), "Cannot find context") &&
			!strings.Contains(err.Error(), "context was destroyed") && !strings.Contains(err.Error(), "Inspected target navigated") {
			t.Fatalf("wait for %s: %v", what, err)
		}
	}
}

// openAt opens the conversation in a viewport width px wide and waits
// until it is drawn with its fonts.
func openAt(t *testing.T, ctx context.Context, addr string, width int) {
	t.Helper()
	run(t, ctx, "size the viewport", chromedp.EmulateViewport(int64(width), 900))
	// From a blank page: the same address again would only change its
	// fragment, which the page answers by loading itself again.
	run(t, ctx, "open the page", chromedp.Steps(chromedp.Navigate("about:blank"), chromedp.Navigate(addr)))
	waitFor(t, ctx, `document.getElementById('events') !== null && document.querySelector('.ev.tool.call') !== null &&
		location.hash === '' && [...document.querySelectorAll('link[rel=stylesheet]')].every(l => l.sheet !== null) &&
		document.fonts.status === 'loaded'`, "the conversation")
	run(t, ctx, "wait for the fonts", chromedp.Evaluate[bool](`document.fonts.ready.then(() => true)`, chromedp.EvalAwaitPromise))
}

// fullShot is a screenshot of the whole page: the viewport is made as
// tall as the page, then captured.
func fullShot(t *testing.T, ctx context.Context, width int) []byte {
	t.Helper()
	h := run(t, ctx, "measure the page", chromedp.Evaluate[int](`Math.ceil(document.documentElement.scrollHeight)`))
	run(t, ctx, "size the viewport to the page", chromedp.EmulateViewport(int64(width), int64(h)))
	waitFor(t, ctx, `window.innerHeight === document.documentElement.scrollHeight`, "the resized viewport")
	return run(t, ctx, "screenshot", chromedp.CaptureScreenshot())
}

// TestWebScreens draws the fixed conversation at a phone's, a tablet's
// and a laptop's width and compares each with its reference image
// (testdata/screens; regenerate them with make web-golden). At each width
// the page has no horizontal scroll and every tool result and diff wraps
// inside its box.
func TestWebScreens(t *testing.T) {
	ctx := screenBrowser(t)
	_, addr := screenServer(t, screenFixture())
	for _, w := range screenWidths {
		openAt(t, ctx, addr, w)
		checkNoSideways(t, ctx, w)
		checkStickyHeader(t, ctx, w)
		got := fullShot(t, ctx, w)
		compareGolden(t, fmt.Sprintf("conversation-%d.png", w), got)
	}
}

// TestWebApprovalDiff drives a turn whose write tool asks for permission
// on a phone-wide page: the question shows the call's one-line summary
// and the diff it will apply, coloured line by line and wrapped, above
// Approve and Reject; its picture is compared with approval-390.png.
// Approving answers jp.
func TestWebApprovalDiff(t *testing.T) {
	ctx := screenBrowser(t)
	f := screenFixture()
	st := newFakeStream()
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) { return st, nil }
	_, addr := screenServer(t, f)
	openAt(t, ctx, addr, 390)
	run(t, ctx, "type", chromedp.SendKeys(chromedp.ID("message"), "note the greeting"))
	run(t, ctx, "send", chromedp.Click(chromedp.ID("send")))
	waitFor(t, ctx, `document.getElementById('conv').classList.contains('running')`, "the turn")
	st.ask(`{"type":"tool_approval","call_id":"call_1_0","name":"fs_modify_file",` +
		`"arguments":{"patterns":[{"old":"hello world\n","new":"hello jp\n","paths":["greet.txt"]}]},` +
		`"diff":"--- a/greet.txt\n+++ b/greet.txt\n@@ -1,3 +1,3 @@\n # Greetings, one a line, that the program prints in turn as it starts up\n-hello world\n+hello jp\n bye\n"}`)
	card := `[data-approval="call_1_0"]`
	waitFor(t, ctx, `document.querySelector('`+card+` pre.diff span.add') !== null`, "the approval with its diff")
	if got := run(t, ctx, "the summary", chromedp.Evaluate[string](`document.querySelector('`+card+` code.summary').textContent`)); got != "✎ fs_modify_file greet.txt (+1 −1)" {
		t.Errorf("approval summary = %q", got)
	}
	// The diff comes before the buttons, its lines coloured by kind.
	if !run(t, ctx, "the diff's place and colours", chromedp.Evaluate[bool](`(() => {
		const c = document.querySelector('`+card+`'), d = c.querySelector('pre.diff'), b = c.querySelector('button.approve');
		const col = (sel) => getComputedStyle(d.querySelector(sel)).color;
		return (d.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0 &&
			d.querySelector('span.del').textContent.startsWith('-hello world') && d.querySelector('span.add').textContent.startsWith('+hello jp') &&
			col('span.add') !== col('span.ctx') && col('span.del') !== col('span.ctx') && col('span.add') !== col('span.del');
	})()`)) {
		t.Error("the approval's diff is not above Approve with its added and removed lines coloured apart")
	}
	checkNoSideways(t, ctx, 390)
	shot := run(t, ctx, "screenshot the approval", chromedp.Screenshot(chromedp.CSS(card)))
	compareGolden(t, "approval-390.png", shot)
	run(t, ctx, "approve", chromedp.Click(chromedp.CSS(card+" button.approve")))
	waitFor(t, ctx, `document.querySelector('`+card+` .answer').textContent === 'Approved'`, "the answer")
	f.mu.Lock()
	responds := append([]respondCall(nil), f.responds...)
	f.mu.Unlock()
	if len(responds) != 1 || responds[0] != (respondCall{"call_1_0", "approve"}) {
		t.Errorf("jp was answered %v", responds)
	}
	st.end(plugin.QueryComplete{Conversation: screenConv, Outcome: conversation.OutcomeCompleted})
	waitFor(t, ctx, `!document.getElementById('conv').classList.contains('running')`, "the turn's end")
}

// checkNoSideways fails if the page scrolls sideways at width or a tool
// result, argument list or diff is wider than its box or does not wrap.
func checkNoSideways(t *testing.T, ctx context.Context, width int) {
	t.Helper()
	if sw := run(t, ctx, "scroll width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); sw > width {
		t.Errorf("at %d px the page is %d px wide: it scrolls sideways", width, sw)
	}
	bad := run(t, ctx, "tool boxes", chromedp.Evaluate[[]string](`[...document.querySelectorAll('.ev.tool pre, .ev.approval pre, code.summary')]
		.filter(e => getComputedStyle(e).whiteSpace !== 'pre-wrap' || e.scrollWidth > e.clientWidth + 1 ||
			e.getBoundingClientRect().right > e.closest('.ev').getBoundingClientRect().right + 0.5)
		.map(e => e.className + ' in ' + e.closest('.ev').dataset.eventId + ': ' + getComputedStyle(e).whiteSpace + ' ' + e.scrollWidth + '>' + e.clientWidth)`))
	if len(bad) > 0 {
		t.Errorf("at %d px these do not wrap inside their box: %v", width, bad)
	}
	n := run(t, ctx, "count the tool boxes", chromedp.Evaluate[int](`document.querySelectorAll('.ev.tool.result').length`))
	if n < 3 {
		t.Errorf("the page shows %d tool results, want 3", n)
	}
}

// checkStickyHeader scrolls the page down and checks that the header
// sits at the top of the window with nothing above it: its first row of
// pixels is the header's. (A blank band above it showed in headless
// Chromium's screenshots of a scrolled page: its --screenshot captures the
// whole window while the viewport is 87 px shorter (room for a browser's
// bar it does not draw), and a capture "beyond the viewport" keeps the
// sticky header where the scroll put it. A real window shows no band;
// fullShot sizes the viewport to the page instead, unscrolled.)
func checkStickyHeader(t *testing.T, ctx context.Context, width int) {
	t.Helper()
	run(t, ctx, "scroll down", chromedp.Evaluate[bool](`window.scrollTo(0, 600); true`))
	waitFor(t, ctx, `window.scrollY === 600`, "the scroll")
	if !run(t, ctx, "the header", chromedp.Evaluate[bool](`document.querySelector('header.top').getBoundingClientRect().top === 0 &&
		document.elementFromPoint(2, 1).closest('header.top') !== null`)) {
		t.Errorf("at %d px, scrolled, the header is not at the top of the window", width)
	}
	shot := run(t, ctx, "screenshot the window", chromedp.CaptureScreenshot())
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	for x := 0; x < width; x += 7 {
		if r, g, b, _ := img.At(x, 0).RGBA(); r>>8 != 0xff || g>>8 != 0xff || b>>8 != 0xff {
			t.Fatalf("at %d px, scrolled, the window's top row at x=%d is %v, not the header's white", width, x, img.At(x, 0))
		}
	}
	run(t, ctx, "scroll back", chromedp.Evaluate[bool](`window.scrollTo(0, 0); true`))
}

// goldenDir holds the reference images.
var goldenDir = filepath.Join("testdata", "screens")

// compareGolden compares a screenshot with its reference image, or with
// JP_WEB_GOLDEN=1 (make web-golden) writes it as the new reference. A
// mismatch saves the screenshot and a picture of the differing pixels
// (red) under $JP_WEB_SHOTS or a new directory in $TMPDIR, and says where.
func compareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if os.Getenv("JP_WEB_GOLDEN") == "1" {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: make web-golden writes the reference images", err)
	}
	share, diff, err := comparePNG(got, want)
	if err == nil && share <= maxDiffShare {
		return
	}
	// Kept after the test (not t.TempDir) so the failure can be looked at.
	dir := os.Getenv("JP_WEB_SHOTS")
	if dir == "" || !filepath.IsAbs(dir) {
		var mkErr error
		if dir, mkErr = os.MkdirTemp("", "jp-web-screens-"); mkErr != nil {
			t.Fatal(mkErr)
		}
	}
	_ = os.MkdirAll(dir, 0o755)
	saved := filepath.Join(dir, "got-"+name)
	_ = os.WriteFile(saved, got, 0o644)
	if diff != nil {
		var b bytes.Buffer
		if png.Encode(&b, diff) == nil {
			_ = os.WriteFile(filepath.Join(dir, "diff-"+name), b.Bytes(), 0o644)
		}
	}
	if err != nil {
		t.Errorf("%s: %v (screenshot saved as %s; make web-golden if the change is meant)", name, err, saved)
		return
	}
	t.Errorf("%s: %.2f%% of the pixels differ from the reference (at most %.2f%% may); screenshot saved as %s, the differing pixels in diff-%s beside it; make web-golden if the change is meant",
		name, share*100, maxDiffShare*100, saved, name)
}

// comparePNG returns the share of pixels of got that differ from want
// (one channel off by more than channelSlack), and an image of them in
// red. Images of other sizes are an error.
func comparePNG(got, want []byte) (float64, image.Image, error) {
	g, err := png.Decode(bytes.NewReader(got))
	if err != nil {
		return 0, nil, fmt.Errorf("screenshot: %w", err)
	}
	w, err := png.Decode(bytes.NewReader(want))
	if err != nil {
		return 0, nil, fmt.Errorf("reference image: %w", err)
	}
	if g.Bounds() != w.Bounds() {
		return 0, nil, fmt.Errorf("the screenshot is %v, the reference image %v", g.Bounds().Size(), w.Bounds().Size())
	}
	b := g.Bounds()
	diff := image.NewRGBA(b)
	differ := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if pixelsDiffer(g.At(x, y), w.At(x, y)) {
				differ++
				diff.Set(x, y, color.RGBA{R: 255, A: 255})
			} else {
				r, gg, bb, _ := w.At(x, y).RGBA()
				grey := uint8((r+gg+bb)/3>>8)/2 + 128 // the reference, faded
				diff.Set(x, y, color.RGBA{R: grey, G: grey, B: grey, A: 255})
			}
		}
	}
	return float64(differ) / float64(b.Dx()*b.Dy()), diff, nil
}

// pixelsDiffer reports whether one channel of a and b differs by more
// than channelSlack (of 255).
func pixelsDiffer(a, b color.Color) bool {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	for _, d := range [][2]uint32{{ar, br}, {ag, bg}, {ab, bb}, {aa, ba}} {
		x, y := d[0]>>8, d[1]>>8
		if x > y+channelSlack || y > x+channelSlack {
			return true
		}
	}
	return false
}

// docs/web.md shows the page at each width: every image it links exists,
// and each docs/images/web-NAME is the reference image NAME, so the
// documentation shows what the tests check (make web-golden copies them).
func TestWebDocsShowScreens(t *testing.T) {
	t.Parallel()
	docs := filepath.Join("..", "..", "..", "docs")
	md, err := os.ReadFile(filepath.Join(docs, "web.md"))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+)\)`).FindAllStringSubmatch(string(md), -1)
	shown := map[string]bool{}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join(docs, filepath.FromSlash(l[1]))); err != nil {
			t.Errorf("docs/web.md links %s: %v", l[1], err)
		}
		shown[l[1]] = true
	}
	refs, err := filepath.Glob(filepath.Join(goldenDir, "*.png"))
	if err != nil || len(refs) == 0 {
		t.Fatalf("no reference images in %s (%v)", goldenDir, err)
	}
	for _, ref := range refs {
		name := "images/web-" + filepath.Base(ref)
		if !shown[name] {
			t.Errorf("docs/web.md does not show %s", name)
		}
		want, err := os.ReadFile(ref)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(docs, filepath.FromSlash(name))); err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/%s is not the reference image %s: make web-golden copies it", name, ref)
		}
	}
}

// comparePNG counts a pixel as differing only past channelSlack, and
// refuses images of another size.
func TestComparePNG(t *testing.T) {
	t.Parallel()
	draw := func(w, h int, set func(img *image.RGBA)) []byte {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				img.Set(x, y, color.RGBA{R: 200, G: 200, B: 200, A: 255})
			}
		}
		if set != nil {
			set(img)
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	ref := draw(10, 10, nil)
	for _, tc := range []struct {
		name  string
		got   []byte
		share float64
	}{
		{"same", draw(10, 10, nil), 0},
		{"within the slack", draw(10, 10, func(img *image.RGBA) { img.Set(1, 1, color.RGBA{R: 200 + channelSlack, G: 200, B: 200, A: 255}) }), 0},
		{"past the slack", draw(10, 10, func(img *image.RGBA) { img.Set(1, 1, color.RGBA{R: 200, G: 199 - channelSlack, B: 200, A: 255}) }), 0.01},
		{"two pixels", draw(10, 10, func(img *image.RGBA) {
			img.Set(0, 0, color.RGBA{A: 255})
			img.Set(9, 9, color.RGBA{R: 255, G: 255, B: 255, A: 255})
		}), 0.02},
	} {
		share, _, err := comparePNG(tc.got, ref)
		if err != nil || share != tc.share {
			t.Errorf("%s: share %v, %v; want %v", tc.name, share, err, tc.share)
		}
	}
	if _, _, err := comparePNG(draw(10, 11, nil), ref); err == nil || !strings.Contains(err.Error(), "the screenshot is (10,11), the reference image (10,10)") {
		t.Errorf("another size: %v", err)
	}
}
