package terminal

import (
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// This file is the line layout of the markdown renderer: styled spans and
// a word wrapper turning them into terminal lines.

// span is a run of text in one style; brk marks a hard line break.
type span struct {
	text string
	st   style
	brk  bool
}

// runeWidth is the display width of r; control characters never get here.
func runeWidth(r rune) int {
	if r < utf8.RuneSelf {
		return 1
	}
	return runewidth.RuneWidth(r)
}

// textWidth returns the display width of s and whether it has a wide rune.
func textWidth(s string) (w int, wide bool) {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			for _, r := range s[i:] {
				rw := runeWidth(r)
				w += rw
				wide = wide || rw > 1
			}
			return w + i, wide
		}
	}
	return len(s), false
}

// wline is one wrapped line, with SGR sequences, and its display width.
type wline struct {
	s string
	w int
}

// wrapper breaks spans into lines at most width columns wide, at spaces;
// runs of spaces, tabs and newlines collapse to one space. A word longer than a line, or one with
// wide (CJK) runes that does not fit, is broken between runes.
type wrapper struct {
	t     *theme
	width int
	lines []wline
	b     strings.Builder
	sgr   string // SGR in effect on the current line
	w     int    // width of the current line
	// word is the word being collected (it may span styles).
	word  []span
	wordW int
	wide  bool
	// space is a pending space before the next word.
	space   bool
	spaceSt style
}

// wrap wraps spans to width columns.
func (t *theme) wrap(spans []span, width int) []wline {
	wr := wrapper{t: t, width: max(width, 1)}
	n := 0
	for _, s := range spans {
		n += len(s.text)
	}
	wr.lines = make([]wline, 0, 1+n/wr.width)
	wr.b.Grow(min(n, wr.width*2) + 16)
	for _, s := range spans {
		if s.brk {
			wr.flushWord()
			wr.endLine()
			continue
		}
		text := s.text
		for text != "" {
			if text[0] == ' ' || text[0] == '\t' || text[0] == '\n' {
				wr.flushWord()
				wr.space, wr.spaceSt = true, s.st
				text = strings.TrimLeft(text, " \t\n")
				continue
			}
			j := strings.IndexAny(text, " \t\n")
			if j < 0 {
				j = len(text)
			}
			w, wide := textWidth(text[:j])
			wr.word = append(wr.word, span{text: text[:j], st: s.st})
			wr.wordW += w
			wr.wide = wr.wide || wide
			text = text[j:]
		}
	}
	wr.flushWord()
	if wr.w > 0 {
		wr.endLine()
	}
	return wr.lines
}

func (wr *wrapper) flushWord() {
	if len(wr.word) == 0 {
		return
	}
	sp := 0
	if wr.space && wr.w > 0 {
		sp = 1
	}
	switch {
	case wr.w+sp+wr.wordW <= wr.width:
	case wr.wordW <= wr.width && !wr.wide:
		wr.endLine()
		sp = 0
	default:
		// Break the word between runes, starting on this line.
		if sp == 1 && wr.w+1 >= wr.width {
			wr.endLine()
			sp = 0
		}
		if sp == 1 {
			wr.put(" ", wr.spaceSt, 1)
		}
		for _, p := range wr.word {
			for i := 0; i < len(p.text); {
				r, size := utf8.DecodeRuneInString(p.text[i:])
				rw := runeWidth(r)
				if wr.w+rw > wr.width && wr.w > 0 {
					wr.endLine()
				}
				wr.put(p.text[i:i+size], p.st, rw)
				i += size
			}
		}
		wr.word, wr.wordW, wr.wide, wr.space = wr.word[:0], 0, false, false
		return
	}
	if sp == 1 {
		wr.put(" ", wr.spaceSt, 1)
	}
	for _, p := range wr.word {
		wr.put(p.text, p.st, 0)
	}
	wr.w += wr.wordW
	wr.word, wr.wordW, wr.wide, wr.space = wr.word[:0], 0, false, false
}

// put writes text in style st, adding w to the line width.
func (wr *wrapper) put(text string, st style, w int) {
	if s := wr.t.sgr(st); s != wr.sgr {
		if wr.sgr != "" {
			wr.b.WriteString(sgrReset)
		}
		wr.b.WriteString(s)
		wr.sgr = s
	}
	wr.b.WriteString(text)
	wr.w += w
}

func (wr *wrapper) endLine() {
	if wr.sgr != "" {
		wr.b.WriteString(sgrReset)
		wr.sgr = ""
	}
	wr.lines = append(wr.lines, wline{s: wr.b.String(), w: wr.w})
	wr.b.Reset()
	wr.w = 0
	wr.space = false
}
