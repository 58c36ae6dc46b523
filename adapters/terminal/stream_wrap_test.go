package terminal

import (
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

// streamWords is a paragraph of words of many lengths, none longer than
// the narrowest width tested.
func streamWords(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, n)
	for i := range words {
		words[i] = strings.Repeat(string(rune('a'+i%26)), 1+r.IntN(11)) + "ö"
	}
	return words
}

// TestStreamedParagraphNeverSplitsWords streams a long paragraph in
// chunks of every size, at several widths, and checks the screen after
// every chunk: each line holds only whole words, never wider than the
// terminal (the raw echo is laid out at word boundaries, not left to the
// terminal's wrapping).
func TestStreamedParagraphNeverSplitsWords(t *testing.T) {
	words := streamWords(120)
	text := strings.Join(words, " ")
	whole := map[string]bool{}
	for _, w := range words {
		whole[w] = true
	}
	for _, width := range []int{16, 37, 80, 120} {
		for _, chunk := range []int{1, 3, 7, 40} {
			for _, hold := range []bool{false, true} {
				p, v := ttyPrinter(width, 200)
				if hold {
					p.md.hold = true
				}
				for i := 0; i < len(text); i += chunk {
					p.Write(ports.ChannelContent, text[i:min(i+chunk, len(text))])
					for _, line := range strings.Split(v.String(), "\n") {
						if w := len([]rune(line)); w > width {
							t.Fatalf("width %d chunk %d: line of %d columns: %q", width, chunk, w, line)
						}
						for _, f := range strings.Fields(line) {
							if !whole[f] {
								t.Fatalf("width %d chunk %d hold %v: %q on screen is not a whole word; screen:\n%s", width, chunk, hold, f, v)
							}
						}
					}
				}
				p.EndBlock(ports.ChannelContent)
				if got := strings.Join(strings.Fields(v.String()), " "); got != text {
					t.Fatalf("width %d chunk %d: the rendered paragraph lost words:\n%s", width, chunk, v)
				}
			}
		}
	}
}

// TestHeldLineIsWrittenWhenInterrupted: a line held back for the status
// line reaches the screen before other output follows it.
func TestHeldLineIsWrittenWhenInterrupted(t *testing.T) {
	p, v := ttyPrinter(40, 24)
	p.md.hold = true
	p.Write(ports.ChannelContent, "partial line of text ")
	if strings.Contains(v.String(), "partial") {
		t.Fatalf("a held line is on screen:\n%s", v)
	}
	p.Write(ports.ChannelChrome, "a chrome line")
	p.EndBlock(ports.ChannelChrome)
	if got, want := v.String(), "partial line of text\na chrome line"; got != want {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, want)
	}
}

// BenchmarkStreamTTY streams 20,000 word deltas per iteration through a
// terminal printer (the word-wrapping echo, then the render of each
// paragraph) into io.Discard, with and without the status line's hold.
func BenchmarkStreamTTY(b *testing.B) {
	words := streamWords(200)
	for _, hold := range []bool{false, true} {
		b.Run(map[bool]string{false: "echo", true: "held"}[hold], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p := NewPrinter(PrinterOptions{Stdout: io.Discard, Stderr: io.Discard, IsTTY: true, StderrIsTTY: true, Width: 80, Height: 40})
				p.md.hold = hold
				for i := range 20000 {
					if i%200 == 199 {
						p.Write(ports.ChannelContent, "\n\n")
					}
					p.Write(ports.ChannelContent, words[i%len(words)]+" ")
				}
				p.EndBlock(ports.ChannelContent)
			}
		})
	}
}
