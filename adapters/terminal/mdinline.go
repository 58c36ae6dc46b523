package terminal

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// This file is the inline half of the markdown renderer: a small
// CommonMark-style inline parser (emphasis, code spans, links, escapes,
// line breaks) producing styled spans, and a word wrapper turning spans
// into terminal lines.

// span is a run of text in one style; brk marks a hard line break.
type span struct {
	text string
	st   style
	brk  bool
}

// inode is a node of the inline parser: text, a hard break, or a run of
// emphasis delimiters (* _ ~).
type inode struct {
	text  string
	st    style
	brk   bool
	delim byte
	// n is how many delimiter characters are left unmatched; orig how
	// many the run had.
	n, orig int
	// canOpen and canClose follow CommonMark's flanking rules.
	canOpen, canClose bool
	// prevDelim links active delimiter runs, newest first.
	prevDelim int
}

// maxLinkDepth bounds link-in-link recursion; maxLinkText bounds the scan
// for the end of a link's text.
const (
	maxLinkDepth = 2
	maxLinkText  = 2000
)

// inlineSpecial marks the bytes where inline parsing has work to do.
var inlineSpecial = [256]bool{'\\': true, '\n': true, '`': true, '*': true, '_': true, '~': true, '[': true, '!': true, '<': true}

// parseInline parses src as markdown inline content, with every span in at
// least style base, and appends the spans to out.
func (t *theme) parseInline(out []span, src string, base style, depth int) []span {
	nodes := make([]inode, 0, 4+len(src)/32)
	start := 0 // start of the pending run of plain text
	flush := func(end int) {
		if end > start {
			nodes = append(nodes, inode{text: src[start:end], prevDelim: -1})
		}
	}
	var noCloser [32]bool // code span closer lengths known to be absent
	lastDelim := -1
	for i := 0; i < len(src); {
		c := src[i]
		if !inlineSpecial[c] {
			i++
			continue
		}
		switch c {
		case '\\':
			if i+1 < len(src) && isASCIIPunct(src[i+1]) {
				flush(i)
				nodes = append(nodes, inode{text: src[i+1 : i+2], prevDelim: -1})
				i += 2
				start = i
				continue
			}
			if i+1 < len(src) && src[i+1] == '\n' {
				flush(i)
				nodes = append(nodes, inode{brk: true, prevDelim: -1})
				i = skipSpaces(src, i+2)
				start = i
				continue
			}
			i++
		case '\n':
			j := i
			for j > start && src[j-1] == ' ' {
				j--
			}
			flush(j)
			if i-j >= 2 {
				nodes = append(nodes, inode{brk: true, prevDelim: -1})
			} else {
				nodes = append(nodes, inode{text: " ", prevDelim: -1})
			}
			i = skipSpaces(src, i+1)
			start = i
		case '`':
			n := runLength(src, i, '`')
			end := -1
			if n >= len(noCloser) || !noCloser[n] {
				end = findBackticks(src, i+n, n)
				if end < 0 && n < len(noCloser) {
					noCloser[n] = true
				}
			}
			if end < 0 {
				i += n
				continue
			}
			flush(i)
			code := src[i+n : end]
			if t.plain || t.noColor {
				// The style cannot show code: keep the backticks.
				code = src[i : end+n]
			} else if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
				code = code[1 : len(code)-1]
			}
			if strings.IndexByte(code, '\n') >= 0 {
				code = strings.ReplaceAll(code, "\n", " ")
			}
			nodes = append(nodes, inode{text: code, st: stCode, prevDelim: -1})
			i = end + n
			start = i
		case '*', '_', '~':
			n := runLength(src, i, c)
			if c == '~' && n != 2 {
				i += n
				continue
			}
			flush(i)
			prev, _ := utf8.DecodeLastRuneInString(src[:i])
			if i == 0 {
				prev = ' '
			}
			next, _ := utf8.DecodeRuneInString(src[i+n:])
			if i+n == len(src) {
				next = ' '
			}
			prevSpace, nextSpace := unicode.IsSpace(prev), unicode.IsSpace(next)
			prevPunct, nextPunct := isPunct(prev), isPunct(next)
			left := !nextSpace && (!nextPunct || prevSpace || prevPunct)
			right := !prevSpace && (!prevPunct || nextSpace || nextPunct)
			nd := inode{text: src[i : i+n], delim: c, n: n, orig: n, canOpen: left, canClose: right, prevDelim: lastDelim}
			if c == '_' {
				nd.canOpen = left && (!right || prevPunct)
				nd.canClose = right && (!left || nextPunct)
			}
			lastDelim = len(nodes)
			nodes = append(nodes, nd)
			i += n
			start = i
		case '[', '!':
			lb := i
			if c == '!' {
				if i+1 >= len(src) || src[i+1] != '[' {
					i++
					continue
				}
				lb++
			}
			textEnd, dest, end, ok := parseLink(src, lb)
			if !ok || depth >= maxLinkDepth {
				i = lb + 1
				continue
			}
			flush(i)
			label := src[lb+1 : textEnd]
			if c == '!' && strings.TrimSpace(label) == "" {
				label = "image"
			}
			for _, s := range t.parseInline(nil, label, stLink, depth+1) {
				nodes = append(nodes, inode{text: s.text, st: s.st, brk: s.brk, prevDelim: -1})
			}
			if dest != "" && dest != label && "mailto:"+label != dest {
				nodes = append(nodes, inode{text: " (" + dest + ")", st: stURL, prevDelim: -1})
			}
			i = end
			start = i
		case '<':
			if end, ok := autolink(src, i); ok {
				flush(i)
				nodes = append(nodes, inode{text: src[i+1 : end-1], st: stLink, prevDelim: -1})
				i = end
				start = i
				continue
			}
			i++
		}
	}
	flush(len(src))
	if lastDelim >= 0 {
		processEmphasis(nodes)
	}
	// Merge runs of nodes in the same style into one span.
	var b strings.Builder
	for k := 0; k < len(nodes); {
		nd := &nodes[k]
		if nd.brk {
			out = append(out, span{brk: true, st: nd.st | base})
			k++
			continue
		}
		st := nd.st
		end := k + 1
		for end < len(nodes) && !nodes[end].brk && nodes[end].st == st {
			end++
		}
		text := t.nodeText(nd)
		if end > k+1 {
			b.Reset()
			for _, m := range nodes[k:end] {
				b.WriteString(t.nodeText(&m))
			}
			text = b.String()
		}
		if text != "" {
			out = append(out, span{text: text, st: st | base})
		}
		k = end
	}
	return out
}

// nodeText is what a node shows: a delimiter run shows its unmatched
// characters, or all of them in a plain theme.
func (t *theme) nodeText(nd *inode) string {
	if nd.delim != 0 && !t.plain {
		return nd.text[:nd.n]
	}
	return nd.text
}

// processEmphasis pairs delimiter runs into emphasis, strong emphasis and
// strikethrough, following CommonMark's "process emphasis" procedure, and
// sets the style of the nodes between each pair.
func processEmphasis(nodes []inode) {
	// bottom[delim][closer length % 3][closer can open]: openers below
	// this index are known not to match.
	var bottom [3][3][2]int
	// counts[k*3+b] is the change at node k of how many pairs of kind b
	// enclose it.
	counts := make([]int32, 3*(len(nodes)+1))
	for c := 0; c < len(nodes); c++ {
		cn := &nodes[c]
		if cn.delim == 0 || !cn.canClose || cn.n == 0 {
			continue
		}
		bp := &bottom[delimKind(cn.delim)][cn.orig%3][btoi(cn.canOpen)]
		found := -1
		for o := cn.prevDelim; o >= *bp && o >= 0; o = nodes[o].prevDelim {
			on := &nodes[o]
			if on.delim != cn.delim || !on.canOpen || on.n == 0 {
				continue
			}
			if cn.delim == '~' {
				if on.n != cn.n {
					continue
				}
			} else if (on.canClose || cn.canOpen) && (on.orig+cn.orig)%3 == 0 && (on.orig%3 != 0 || cn.orig%3 != 0) {
				continue
			}
			found = o
			break
		}
		if found < 0 {
			*bp = c
			continue
		}
		on := &nodes[found]
		use, kind := 1, 0 // kind 0 italic, 1 bold, 2 strike
		switch {
		case cn.delim == '~':
			use, kind = cn.n, 2
		case on.n >= 2 && cn.n >= 2:
			use, kind = 2, 1
		}
		counts[(found+1)*3+kind]++
		counts[c*3+kind]--
		on.n -= use
		cn.n -= use
		// The delimiters between the pair can no longer match.
		cn.prevDelim = found
		if on.n == 0 {
			cn.prevDelim = on.prevDelim
		}
		if cn.n > 0 {
			c-- // look for another opener for the rest of this closer
		}
	}
	var open [3]int32
	for k := range nodes {
		for b := range open {
			open[b] += counts[k*3+b]
		}
		if open[0] > 0 {
			nodes[k].st |= stItalic
		}
		if open[1] > 0 {
			nodes[k].st |= stBold
		}
		if open[2] > 0 {
			nodes[k].st |= stStrike
		}
	}
}

func delimKind(c byte) int {
	switch c {
	case '*':
		return 0
	case '_':
		return 1
	}
	return 2
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// runLength is the length of the run of c starting at s[i].
func runLength(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// findBackticks returns the index of the first run of exactly n backticks
// at or after from, or -1.
func findBackticks(s string, from, n int) int {
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		i += j
		m := runLength(s, i, '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// parseLink parses an inline link whose text starts with the '[' at
// s[lb]: [text](dest "title"). It returns the index of the closing ']',
// the destination, and the index after the closing ')'.
func parseLink(s string, lb int) (textEnd int, dest string, end int, ok bool) {
	depth := 0
	i := lb + 1
	for ; i < len(s) && i-lb < maxLinkText; i++ {
		switch s[i] {
		case '\\':
			i++
			continue
		case '`':
			n := runLength(s, i, '`')
			if e := findBackticks(s[:min(len(s), lb+maxLinkText)], i+n, n); e >= 0 {
				i = e + n - 1
			} else {
				i += n - 1
			}
			continue
		case '[':
			depth++
			continue
		case ']':
			if depth > 0 {
				depth--
				continue
			}
		default:
			continue
		}
		break
	}
	if i >= len(s) || s[i] != ']' || i+1 >= len(s) || s[i+1] != '(' {
		return 0, "", 0, false
	}
	textEnd = i
	i = skipWhitespace(s, i+2)
	// Destination: <...> or a run without spaces, with balanced parentheses.
	if i < len(s) && s[i] == '<' {
		j := strings.IndexAny(s[i+1:], ">\n")
		if j < 0 || s[i+1+j] != '>' {
			return 0, "", 0, false
		}
		dest = s[i+1 : i+1+j]
		i += j + 2
	} else {
		p, j := 0, i
	scan:
		for ; j < len(s); j++ {
			switch c := s[j]; {
			case c == '\\' && j+1 < len(s) && isASCIIPunct(s[j+1]):
				j++
			case c == '(':
				p++
				if p > 32 {
					return 0, "", 0, false
				}
			case c == ')':
				if p == 0 {
					break scan
				}
				p--
			case c == ' ' || c == '\n' || c == '\t':
				break scan
			}
		}
		dest = s[i:j]
		i = j
	}
	i = skipWhitespace(s, i)
	// Optional title.
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '(') {
		closer := s[i]
		if closer == '(' {
			closer = ')'
		}
		j := i + 1
		for j < len(s) && s[j] != closer {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			return 0, "", 0, false
		}
		i = skipWhitespace(s, j+1)
	}
	if i >= len(s) || s[i] != ')' {
		return 0, "", 0, false
	}
	return textEnd, dest, i + 1, true
}

func skipWhitespace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

// autolink reports whether s[i:] starts with <scheme:...> or <user@host>,
// and returns the index after the '>'.
func autolink(s string, i int) (int, bool) {
	j := strings.IndexByte(s[i+1:], '>')
	if j < 2 {
		return 0, false
	}
	body := s[i+1 : i+1+j]
	if strings.ContainsAny(body, " \t\n<") {
		return 0, false
	}
	colon := strings.IndexByte(body, ':')
	if colon >= 2 && colon <= 32 && isScheme(body[:colon]) {
		return i + j + 2, true
	}
	if at := strings.IndexByte(body, '@'); at > 0 && at < len(body)-1 && strings.IndexByte(body[at:], '.') > 0 {
		return i + j + 2, true
	}
	return 0, false
}

func isScheme(s string) bool {
	for k := 0; k < len(s); k++ {
		c := s[k]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || k > 0 && (c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-')
		if !ok {
			return false
		}
	}
	return true
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
