package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

// TestSetStyle: the configured theme picks the light or dark colours of
// rendered answers, and NoCodeColor leaves code uncoloured (emphasis
// keeps its colours).
func TestSetStyle(t *testing.T) {
	t.Parallel()
	render := func(s *ports.OutputStyle) string {
		var out bytes.Buffer
		p := NewPrinter(PrinterOptions{Stdout: &out, Stderr: &bytes.Buffer{}, IsTTY: true, Width: 80, Height: 24})
		if s != nil {
			p.SetStyle(*s)
		}
		p.Write(ports.ChannelContent, "# Title\n\nrun `go test` now\n")
		p.EndBlock(ports.ChannelContent)
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	const darkCode, lightCode, lightH1 = "38;5;203", "38;5;160", "38;5;162"
	if out := render(nil); !strings.Contains(out, darkCode) {
		t.Errorf("default (dark) lacks its code colour: %q", out)
	}
	if out := render(&ports.OutputStyle{Light: true}); !strings.Contains(out, lightCode) || strings.Contains(out, darkCode) {
		t.Errorf("light theme: %q", out)
	}
	out := render(&ports.OutputStyle{Light: true, NoCodeColor: true})
	if strings.Contains(out, lightCode) || strings.Contains(out, darkCode) || !strings.Contains(out, lightH1) {
		t.Errorf("no code colour: %q", out)
	}
}
