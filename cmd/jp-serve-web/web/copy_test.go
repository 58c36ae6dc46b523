package web

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// A code block's Copy button puts the block's code on the clipboard and
// says so.
func TestWebCopyButton(t *testing.T) {
	ctx := screenBrowser(t)
	_, addr := screenServer(t, screenFixture())
	openAt(t, ctx, addr, 1280)
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		run(t, ctx, "allow "+name, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, browser.SetPermission, browser.SetPermissionParams{
				Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted})
			return err
		}))
	}
	run(t, ctx, "copy", chromedp.Click(chromedp.CSS(".code button.copy")))
	waitFor(t, ctx, `document.querySelector('.code button.copy').textContent === 'Copied'`, "Copied")
	got := run(t, ctx, "read the clipboard", chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if want := "func main() {\n\tb, _ := os.ReadFile(\"greet.txt\")\n\tfmt.Print(string(b))\n}"; got != want {
		t.Errorf("the clipboard holds %q, want %q", got, want)
	}
}
