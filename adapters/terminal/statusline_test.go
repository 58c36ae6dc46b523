package terminal

import (
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

// typeAheadPrinter is a terminal printer whose type-ahead runs without a
// key reader: the test feeds keys to typed.
func typeAheadPrinter(width int) (*Printer, *vt, *[]string) {
	p, v := ttyPrinter(width, 200)
	var submitted []string
	p.ta = &typeAhead{active: true, cancel: func() {}}
	p.ta.submit = func(s string) { submitted = append(submitted, s) }
	return p, v, &submitted
}

func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	return lines[len(lines)-1]
}

// TestStatusLineStaysBelowStreamedText: typed text is on the last line,
// the answer streams above it in whole words, and the two never mix.
func TestStatusLineStaysBelowStreamedText(t *testing.T) {
	p, v, submitted := typeAheadPrinter(30)
	p.Write(ports.ChannelContent, "The answer starts here and ")
	p.typed([]byte("sum"))
	p.typed([]byte("marise\x7fe"))
	if got := lastLine(v.String()); !strings.HasPrefix(got, "› summarise") {
		t.Fatalf("last line = %q, want the status line; screen:\n%s", got, v)
	}
	for _, w := range strings.Fields("goes on for a while in words that wrap at the width of the pane ") {
		p.Write(ports.ChannelContent, w+" ")
	}
	scr := v.String()
	lines := strings.Split(scr, "\n")
	if got := lines[len(lines)-1]; !strings.HasPrefix(got, "› summarise") {
		t.Fatalf("last line = %q, want the status line; screen:\n%s", got, scr)
	}
	for _, l := range lines[:len(lines)-1] {
		if strings.Contains(l, "summarise") || strings.Contains(l, "›") {
			t.Fatalf("typed text torn into the answer: %q\n%s", l, scr)
		}
	}
	p.typed([]byte("\r"))
	if len(*submitted) != 1 || (*submitted)[0] != "summarise" {
		t.Fatalf("submitted %q", *submitted)
	}
	if got := lastLine(v.String()); !strings.HasPrefix(got, "reply queued") {
		t.Fatalf("after Enter the status line reads %q", got)
	}
	p.typed([]byte("more"))
	p.typed([]byte{0x1b}) // Esc
	if strings.Contains(v.String(), "more") {
		t.Fatalf("Esc left the typed text:\n%s", v)
	}
	p.typed([]byte("\x1b[A")) // an arrow key is ignored
	// The turn ends: the held line comes out and the status line goes.
	p.ta.cancel = nil
	p.EndBlock(ports.ChannelContent)
	scr = v.String()
	if strings.Contains(scr, "reply queued") || !strings.Contains(scr, "pane") {
		t.Fatalf("after the status line went:\n%s", scr)
	}
	if got := strings.Join(strings.Fields(scr), " "); got != "The answer starts here and goes on for a while in words that wrap at the width of the pane" {
		t.Fatalf("the answer is %q", got)
	}
}

// TestStatusLineWithChrome: a chrome line written while the status line
// is shown goes above it, and the status line comes back below.
func TestStatusLineWithChrome(t *testing.T) {
	p, v, _ := typeAheadPrinter(40)
	p.typed([]byte("next"))
	p.Write(ports.ChannelChrome, "retrying in 2s")
	p.EndBlock(ports.ChannelChrome)
	if got, want := v.String(), "retrying in 2s\n› next"; !strings.HasPrefix(got, want) {
		t.Fatalf("screen:\n%q\nwant prefix %q", got, want)
	}
}

// TestEchoMessage: the message is quoted and dimmed on a terminal, after a
// rule between turns; piped output gets nothing.
func TestEchoMessage(t *testing.T) {
	p, v := ttyPrinter(20, 24)
	p.EchoMessage("first line that is long enough to wrap\nsecond", true)
	want := strings.Repeat("─", 19) + "\n│ first line that\n│ is long enough to\n│ wrap\n│ second"
	if got := v.String(); got != want {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, want)
	}
	piped, out, errb, _ := newPiped(PrinterOptions{})
	piped.EchoMessage("hello", true)
	_ = piped.Flush()
	if out.Len()+errb.Len() != 0 {
		t.Fatalf("piped echo wrote %q %q", out, errb)
	}
}
