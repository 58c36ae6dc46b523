package terminal

import (
	"strings"

	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

var _ ports.TurnEcho = (*Printer)(nil)

// EchoMessage implements ports.TurnEcho: on a terminal (text mode), a
// rule across the screen when rule is set, then the message, dimmed and
// quoted ("│ "), laid out at word boundaries. Elsewhere it prints nothing:
// piped output holds the answer alone.
func (p *Printer) EchoMessage(text string, rule bool) {
	if p.json || !p.out.tty || p.md == nil || strings.TrimSpace(text) == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prepare(&p.out, ports.ChannelUnknown)
	if p.out.midLine {
		_ = p.out.w.WriteByte('\n')
		p.out.midLine = false
	}
	var b strings.Builder
	width := p.opts.Width
	if rule {
		b.WriteString(sgrDim + strings.Repeat("─", max(width-1, 1)) + sgrReset + "\n")
	}
	plain := newTheme("notty", true)
	for _, para := range strings.Split(strings.TrimRight(safetext.String(text), "\n"), "\n") {
		lines := plain.wrap([]span{{text: para}}, max(width-3, 10))
		if len(lines) == 0 {
			b.WriteString(sgrDim + "│" + sgrReset + "\n")
		}
		for _, l := range lines {
			b.WriteString(sgrDim + "│ " + l.s + sgrReset + "\n")
		}
	}
	_, _ = p.out.w.WriteString(b.String())
	if p.ta != nil {
		p.redrawStatus()
	}
	p.flushBoth()
}
