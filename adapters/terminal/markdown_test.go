package terminal

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/jpcli/jp/ports"
)

// vt is a tiny terminal emulator, enough to check what the TTY printer
// leaves on screen: printable runes with deferred wrap, LF (with the
// CR of onlcr), CR, tab (stops every 8 columns, not past the last),
// cursor up, erase below, erase line; SGR and private modes are
// ignored. The screen scrolls without limit.
type vt struct {
	width    int
	lines    [][]rune
	row, col int
	pending  bool // deferred wrap
}

func (v *vt) Write(b []byte) (int, error) {
	s := string(b)
	for i := 0; i < len(s); {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			if j < len(s) {
				v.csi(s[i+2:j], s[j])
			}
			i = j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '\n':
			v.row++
			v.col, v.pending = 0, false
		case '\r':
			v.col, v.pending = 0, false
		case '\t':
			if !v.pending {
				v.col = min((v.col/8+1)*8, v.width-1)
			}
		default:
			w := runewidth.RuneWidth(r)
			if v.pending || v.col+w > v.width {
				v.row++
				v.col, v.pending = 0, false
			}
			v.put(r)
			if w == 2 {
				v.col++
				v.put(0)
				v.col--
			}
			v.col += w
			if v.col >= v.width {
				v.col, v.pending = v.width-1, true
			}
		}
	}
	return len(b), nil
}

func (v *vt) ensure() {
	for len(v.lines) <= v.row {
		v.lines = append(v.lines, nil)
	}
}

func (v *vt) put(r rune) {
	v.ensure()
	line := v.lines[v.row]
	for len(line) <= v.col {
		line = append(line, ' ')
	}
	line[v.col] = r
	v.lines[v.row] = line
}

func (v *vt) csi(params string, final byte) {
	n, _ := strconv.Atoi(params)
	switch final {
	case 'A':
		v.row = max(0, v.row-max(1, n))
		v.pending = false
	case 'J':
		v.ensure()
		v.lines[v.row] = truncRunes(v.lines[v.row], v.col)
		v.lines = v.lines[:v.row+1]
	case 'K':
		v.ensure()
		v.lines[v.row] = truncRunes(v.lines[v.row], v.col)
	}
}

func truncRunes(l []rune, n int) []rune {
	if len(l) > n {
		return l[:n]
	}
	return l
}

func (v *vt) String() string {
	out := make([]string, len(v.lines))
	for i, l := range v.lines {
		out[i] = strings.TrimRight(strings.ReplaceAll(string(l), "\x00", ""), " ")
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// ttyPrinter returns a TTY printer with the default (colour) style
// writing to a vt; the vt ignores SGR, so its screen shows the layout.
func ttyPrinter(width, height int) (*Printer, *vt) {
	v := &vt{width: width}
	return NewPrinter(PrinterOptions{Stdout: v, Stderr: v, IsTTY: true, StderrIsTTY: true, Width: width, Height: height}), v
}

func TestMarkdownStreaming(t *testing.T) {
	tests := []struct {
		name   string
		deltas []string
		want   string
	}{
		{
			name:   "paragraphs",
			deltas: []string{"Hello **wor", "ld**\n", "\nSecond", " para"},
			want:   "Hello world\n\nSecond para",
		},
		{
			name:   "wrapped raw echo is erased",
			deltas: []string{strings.Repeat("word ", 30), "end\n\nnext"},
			want: "word word word word word word word word\nword word word word word word word word\n" +
				"word word word word word word word word\nword word word word word word end\n\nnext",
		},
		{
			name:   "code fence with blank lines stays one block",
			deltas: []string{"```go\nx := 1\n", "\ny := 2\n```", "\nafter"},
			want:   "  x := 1\n\n  y := 2\n\nafter",
		},
		{
			name:   "list",
			deltas: []string{"- a\n- b\n\n", "\n\n", "- c"},
			want:   "• a\n• b\n\n• c",
		},
		{
			name:   "indented text after a list continues it",
			deltas: []string{"1. first\n\n    more ", "about it\n\n    code\n"},
			// After a list, indented text is a paragraph of the list,
			// not an indented code block.
			want: "1. first\n\n    more about it\n\n    code",
		},
		{
			name:   "indented code block",
			deltas: []string{"text\n\n    code\n"},
			want:   "text\n\n  code",
		},
		{
			name:   "control characters are neutralised",
			deltas: []string{"red \x1b[31mtext\x07\r\n"},
			want:   "red ^[[31mtext^G",
		},
		{
			name:   "wide runes",
			deltas: []string{strings.Repeat("漢字", 30), "\n\nok"},
			want:   strings.Repeat("漢字", 10) + "\n" + strings.Repeat("漢字", 10) + "\n" + strings.Repeat("漢字", 10) + "\n\nok",
		},
		{
			name:   "reference definitions show nothing and resolve later links",
			deltas: []string{"[r]: http://u\n", "\n[a][r] &amp; b\n\n", "[s]: http://v\n\n", "[c][s]"},
			want:   "a (http://u) & b\n\nc (http://v)",
		},
		{
			name:   "unclosed fence at the end",
			deltas: []string{"```\nlet x;\n\nlet y;"},
			want:   "  let x;\n\n  let y;",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, v := ttyPrinter(40, 24)
			for _, d := range tt.deltas {
				p.Write(ports.ChannelContent, d)
			}
			p.EndBlock(ports.ChannelContent)
			if got := v.String(); got != tt.want {
				t.Errorf("screen:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestMarkdownStreamingByByte feeds a mixed document one byte at a time:
// the screen must be the same as when it comes in one piece.
func TestMarkdownStreamingByByte(t *testing.T) {
	doc := benchDoc
	whole, v1 := ttyPrinter(60, 200)
	whole.Write(ports.ChannelContent, doc)
	whole.EndBlock(ports.ChannelContent)
	bytewise, v2 := ttyPrinter(60, 200)
	for i := range len(doc) {
		bytewise.Write(ports.ChannelContent, doc[i:i+1])
	}
	bytewise.EndBlock(ports.ChannelContent)
	if v1.String() != v2.String() {
		t.Errorf("byte by byte:\n%s\nin one piece:\n%s", v2, v1)
	}
	if strings.Contains(v1.String(), "**") || strings.Contains(v1.String(), "```") {
		t.Errorf("markdown markers left on screen:\n%s", v1)
	}
}

func TestMarkdownNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	var out strings.Builder
	p := NewPrinter(PrinterOptions{Stdout: &out, Stderr: &out, IsTTY: true, StderrIsTTY: true, Width: 40})
	p.Write(ports.ChannelContent, "# Title\n\n**bold** `code` [link](http://x)\n\n```\ncode\n```\n")
	p.EndBlock(ports.ChannelContent)
	p.Write(ports.ChannelError, "failed")
	p.EndBlock(ports.ChannelError)
	p.Write(ports.ChannelToolCall, "bash {}")
	p.EndBlock(ports.ChannelToolCall)
	got := out.String()
	if strings.Contains(got, "38;5;") || strings.Contains(got, "48;5;") || strings.Contains(got, sgrRed) || strings.Contains(got, sgrCyan) {
		t.Errorf("colours with NO_COLOR set: %q", got)
	}
	for _, want := range []string{"\x1b[1;4mTitle", "\x1b[1mbold", "`code`", "\x1b[4mlink", "    code\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q: %q", want, got)
		}
	}
}

func TestMarkdownInterleaved(t *testing.T) {
	p, v := ttyPrinter(40, 24)
	p.Write(ports.ChannelContent, "partial *para")
	p.Write(ports.ChannelChrome, "retrying")
	p.EndBlock(ports.ChannelChrome)
	p.Write(ports.ChannelContent, "graph* end\n\nnext")
	p.EndBlock(ports.ChannelContent)
	p.Write(ports.ChannelToolCall, "bash {}")
	p.EndBlock(ports.ChannelToolCall)
	want := "partial *para\nretrying\ngraph* end\n\nnext\nbash {}"
	if got := v.String(); got != want {
		t.Errorf("screen:\n%s\nwant:\n%s", got, want)
	}
}

func TestMarkdownTallBlockStaysRaw(t *testing.T) {
	p, v := ttyPrinter(20, 5)
	var lines []string
	for i := 0; i < 8; i++ {
		lines = append(lines, "line "+strconv.Itoa(i))
	}
	p.Write(ports.ChannelContent, strings.Join(lines, "\n"))
	p.Write(ports.ChannelContent, "\n\n**next**")
	p.EndBlock(ports.ChannelContent)
	want := strings.Join(lines, "\n") + "\n\nnext"
	if got := v.String(); got != want {
		t.Errorf("screen:\n%s\nwant:\n%s", got, want)
	}
}

func TestTTYChannels(t *testing.T) {
	p, v := ttyPrinter(80, 24)
	p.Write(ports.ChannelReasoning, "hmm\x1b]0;title\x07")
	p.EndBlock(ports.ChannelReasoning)
	p.Write(ports.ChannelError, "failed")
	p.EndBlock(ports.ChannelError)
	p.Write(ports.ChannelChrome, "\rcount 2")
	p.Write(ports.ChannelChrome, "\rcount 1")
	p.EndBlock(ports.ChannelChrome)
	want := "reasoning: hmm^[]0;title^G\nfailed\ncount 1"
	if got := v.String(); got != want {
		t.Errorf("screen:\n%s\nwant:\n%s", got, want)
	}
}

func TestPickKey(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"Y", "Y", true},
		{"y", "y", true},
		{"\x1b", keyEsc, true},
		{"\x03", keyCtrlC, true},
		{"\x1b[A", "", false},
		{"\x1b[AxN", "N", true},
		{"\x1bOPn", "n", true},
		{"\x1by", "", false},
		{"q\x1b", keyEsc, true},
		{"\r", "", false},
	}
	for _, tt := range tests {
		got, ok := pickKey([]byte(tt.in), permissionOptions)
		if got != tt.want || ok != tt.ok {
			t.Errorf("pickKey(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMarkdownEndAfterOtherChannel(t *testing.T) {
	p, v := ttyPrinter(40, 24)
	p.Write(ports.ChannelContent, "abc")
	p.Write(ports.ChannelReasoning, "thinking")
	p.EndBlock(ports.ChannelReasoning)
	p.EndBlock(ports.ChannelContent)
	p.Write(ports.ChannelContent, "new *para*")
	p.EndBlock(ports.ChannelContent)
	want := "abc\nreasoning: thinking\nnew para"
	if got := v.String(); got != want {
		t.Errorf("screen:\n%s\nwant:\n%s", got, want)
	}
}
