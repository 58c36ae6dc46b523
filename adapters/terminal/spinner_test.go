package terminal

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/jpcli/jp/internal/testkit"
	"github.com/jpcli/jp/ports"
)

// The spinner shows 300 ms after a wait begins, never before, names what
// is waited for, and leaves nothing on the line when it stops. Time is
// synctest's fake clock: no sleep is real.
func TestSpinnerShowsAfterDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var errb testkit.SyncBuffer
		p := NewPrinter(PrinterOptions{Stdout: &bytes.Buffer{}, Stderr: &errb, StderrIsTTY: true})
		stop := p.Wait("waiting for openai/gpt-4o…")
		time.Sleep(spinnerDelay - time.Millisecond)
		synctest.Wait()
		if s := errb.String(); s != "" {
			t.Fatalf("spinner drawn before %s: %q", spinnerDelay, s)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		want := "\r" + sgrDim + spinnerFrames[1] + " waiting for openai/gpt-4o…" + sgrReset + "\x1b[K"
		if s := errb.String(); s != want {
			t.Fatalf("at %s the spinner line is %q, want %q", spinnerDelay, s, want)
		}
		// Past two seconds the line says how long.
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if s := errb.String(); !strings.HasSuffix(s, "waiting for openai/gpt-4o… 2s"+sgrReset+"\x1b[K") {
			t.Errorf("no elapsed time after 2s: %q", s[max(0, len(s)-80):])
		}
		stop()
		stop()
		if s := errb.String(); !strings.HasSuffix(s, "\r\x1b[K") {
			t.Errorf("the line is not cleared when the wait ends: %q", s[max(0, len(s)-40):])
		}
	})
}

// A wait shorter than the delay writes nothing at all.
func TestSpinnerShortWaitWritesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var errb testkit.SyncBuffer
		p := NewPrinter(PrinterOptions{Stdout: &bytes.Buffer{}, Stderr: &errb, StderrIsTTY: true})
		stop := p.Wait("waiting for demo/echo…")
		time.Sleep(spinnerDelay - 10*time.Millisecond)
		stop()
		time.Sleep(time.Second)
		synctest.Wait()
		if s := errb.String(); s != "" {
			t.Errorf("a %s wait wrote %q", spinnerDelay-10*time.Millisecond, s)
		}
	})
}

// Concurrent waits share the line (the newest label, and how many more);
// the delay counts from the oldest; other output clears the line first.
func TestSpinnerConcurrentWaitsAndOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var errb testkit.SyncBuffer
		p := NewPrinter(PrinterOptions{Stdout: &bytes.Buffer{}, Stderr: &errb, StderrIsTTY: true})
		stop1 := p.Wait("waiting for the model")
		time.Sleep(200 * time.Millisecond)
		stop2 := p.Wait("running bash…")
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		if s := errb.String(); !strings.Contains(s, "running bash… (+1 more)") {
			t.Fatalf("spinner not drawn 300 ms after the first wait: %q", s)
		}
		p.Write(ports.ChannelChrome, "line")
		p.EndBlock(ports.ChannelChrome)
		stop2()
		stop1()
		s := errb.String()
		if !strings.Contains(s, "\r\x1b[K"+sgrDim+"line"+sgrReset+"\n") {
			t.Errorf("chrome line not written after clearing the spinner: %q", s)
		}
	})
}

// Control bytes in a label (a tool's or a server's name) are shown, never
// sent, and a long label is cut to the terminal's width so that clearing
// the line clears all of it.
func TestSpinnerLabelSafeAndCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var errb testkit.SyncBuffer
		p := NewPrinter(PrinterOptions{Stdout: &bytes.Buffer{}, Stderr: &errb, StderrIsTTY: true, Width: 40})
		stop := p.Wait("running evil\x1b]0;owned\x07\x1b[2J" + strings.Repeat("x", 100))
		time.Sleep(spinnerDelay)
		synctest.Wait()
		stop()
		s := errb.String()
		for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J"} {
			if strings.Contains(s, bad) {
				t.Errorf("the spinner sent %q: %q", bad, s)
			}
		}
		line := strings.TrimSuffix(strings.TrimPrefix(strings.Split(s, "\x1b[K")[0], "\r"+sgrDim), sgrReset)
		if w := runewidth.StringWidth(line); w > 39 || !strings.HasSuffix(line, "…") {
			t.Errorf("the spinner line is %d cells wide in a 40-column terminal (want at most 39, cut with …): %q", w, line)
		}
	})
}

// No terminal, or --format json: no spinner, no goroutine, nothing written.
func TestSpinnerOffWithoutTerminalOrInJSON(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, opts := range []PrinterOptions{{}, {StderrIsTTY: true, Format: "json"}, {StderrIsTTY: true, Quiet: true}} {
			var errb, out testkit.SyncBuffer
			opts.Stdout, opts.Stderr = &out, &errb
			p := NewPrinter(opts)
			stop := p.Wait("waiting for demo/echo…")
			time.Sleep(5 * time.Second)
			synctest.Wait()
			stop()
			if errb.String() != "" || out.String() != "" {
				t.Errorf("%+v: the spinner wrote %q / %q", opts, errb.String(), out.String())
			}
		}
	})
}
