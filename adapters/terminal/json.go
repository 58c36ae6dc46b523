package terminal

import (
	"bufio"
	"unicode/utf8"

	"github.com/jpcli/jp/ports"
)

// writeJSON prints a streamed piece in --format json (see runevents.go
// for the other records):
//
//	{"type":"delta","kind":"text","text":"..."}
//	{"type":"delta","kind":"reasoning","text":"..."}
//
// Tool calls and results are written as their own records through
// ports.RunEvents, so their rendered lines are not repeated here; a
// command plugin's print on those channels is a "print" record naming the
// channel. It encodes by hand into the buffered writer, so a delta costs
// no allocation.
func (p *Printer) writeJSON(ch ports.Channel, text string) {
	w := p.out.w
	if p.events && (ch == ports.ChannelToolCall || ch == ports.ChannelToolResult) {
		return
	}
	switch ch {
	case ports.ChannelContent:
		_, _ = w.WriteString(`{"type":"delta","kind":"text","text":`)
	case ports.ChannelReasoning:
		_, _ = w.WriteString(`{"type":"delta","kind":"reasoning","text":`)
	default:
		_, _ = w.WriteString(`{"type":"print","channel":"`)
		_, _ = w.WriteString(ch.String())
		_, _ = w.WriteString(`","text":`)
	}
	writeJSONString(w, text)
	_, _ = w.WriteString("}\n")
}

const hexDigits = "0123456789abcdef"

// writeJSONString writes s as a JSON string, as encoding/json would
// (invalid UTF-8 becomes U+FFFD; U+2028 and U+2029 are escaped), and also
// escapes DEL and the C1 controls U+0080 to U+009F, which encoding/json
// leaves raw: no byte of the record can drive a terminal.
func writeJSONString(w *bufio.Writer, s string) {
	_ = w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != 0x7f {
				i++
				continue
			}
			_, _ = w.WriteString(s[start:i])
			switch b {
			case '"', '\\':
				_ = w.WriteByte('\\')
				_ = w.WriteByte(b)
			case '\n':
				_, _ = w.WriteString(`\n`)
			case '\r':
				_, _ = w.WriteString(`\r`)
			case '\t':
				_, _ = w.WriteString(`\t`)
			default:
				_, _ = w.WriteString(`\u00`)
				_ = w.WriteByte(hexDigits[b>>4])
				_ = w.WriteByte(hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			_, _ = w.WriteString(s[start:i])
			_, _ = w.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if r >= 0x80 && r < 0xa0 {
			_, _ = w.WriteString(s[start:i])
			_, _ = w.WriteString(`\u00`)
			_ = w.WriteByte(hexDigits[r>>4])
			_ = w.WriteByte(hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			_, _ = w.WriteString(s[start:i])
			_, _ = w.WriteString(`\u202`)
			_ = w.WriteByte(hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	_, _ = w.WriteString(s[start:])
	_ = w.WriteByte('"')
}

// usageRecord is the --format json record of a turn's usage.
type usageRecord struct {
	Type             string   `json:"type"`
	Model            string   `json:"model"`
	InputTokens      int      `json:"input_tokens"`
	OutputTokens     int      `json:"output_tokens"`
	ReasoningTokens  int      `json:"reasoning_tokens"`
	CacheReadTokens  int      `json:"cache_read_tokens"`
	CacheWriteTokens int      `json:"cache_write_tokens"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
	ContextTokens    int      `json:"context_tokens"`
	ContextWindow    *int     `json:"context_window,omitempty"`
}
