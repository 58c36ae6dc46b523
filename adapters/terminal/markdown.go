package terminal

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jpcli/jp/internal/safetext"
)

// markdown streams content to a terminal as rendered markdown.
//
// Streaming choice: every delta is echoed as raw text the moment it
// arrives, so the answer appears as fast as the model writes it. When a
// block is complete (a blank line outside a code fence, a closing code
// fence, or EndBlock) the raw echo of that block is erased (cursor up,
// clear to end of screen) and replaced by the rendered block (see
// mdrender.go, on goldmark).
// The cursor position is tracked with rune widths and the terminal width
// to know how many rows to erase. A block that cannot be rewritten safely
// (taller than the screen, so its top has scrolled away, or interleaved
// with other output such as a chrome line) stays raw. Control characters
// in model output are neutralised before they reach the terminal.
type markdown struct {
	width, height int
	theme         *theme
	// inList says the last rendered block ended in a list, so that an
	// indented block continues it.
	inList bool

	// buf holds the source of the current block.
	buf []byte
	// echoed is how much of buf is on screen as raw text.
	echoed int
	// scanned is how much of buf was scanned for a block boundary (whole
	// lines only).
	scanned int
	// row and col are the cursor position relative to the start of the
	// block's raw echo: col counts the current visual line, held or not.
	row, col int
	// The raw echo is laid out at word boundaries (RFD 089's rule for
	// streamed paragraphs): a word is written once the space after it
	// arrives, and goes to the next line when it does not fit, so no word
	// is ever split by the terminal's own wrapping. line is the current
	// visual line, of which shown bytes are on screen; word is the word
	// being received and pend the width of the blanks before it.
	line  []byte
	shown int
	word  []byte
	wordW int
	pend  int
	// hold keeps the current visual line off the screen until it is
	// complete, so the cursor stays at the start of a line: the printer
	// sets it while its status line (type-ahead) is drawn there.
	hold bool
	// fence is the marker of an open code fence ("```", "~~~~"), or "".
	fence string
	// content is true once the block has a non-blank line.
	content bool
	// raw is true when the block's echo can no longer be rewritten.
	raw bool
	// started is true once a block of this content stream is on screen,
	// so the next one is separated by a blank line.
	started bool
	// refs are the link reference definitions of the content stream so
	// far.
	refs refSet
}

func newMarkdown(width, height int, style string, noColor bool) *markdown {
	return &markdown{width: width, height: height, theme: newTheme(style, noColor)}
}

// write takes a content delta; it returns whether the cursor is left mid-line.
func (m *markdown) write(w *bufio.Writer, text string) (midLine bool) {
	m.buf = safetext.Append(m.buf, text)
	for {
		m.dropLeadingBlankLines()
		end := m.boundary()
		if end < 0 {
			break
		}
		m.finish(w, end)
	}
	if m.echoed < len(m.buf) {
		if m.echoed == 0 && m.started {
			_ = w.WriteByte('\n')
		}
		m.echo(w, m.buf[m.echoed:])
		m.echoed = len(m.buf)
	}
	return m.shown > 0
}

// end renders what is left of the block and ends the content stream.
func (m *markdown) end(w *bufio.Writer) {
	if len(bytes.TrimSpace(m.buf)) > 0 {
		m.finish(w, len(m.buf))
	} else if m.echoed > 0 {
		m.erase(w)
	}
	m.reset()
	m.buf = m.buf[:0]
	m.started = false
	m.inList = false
	m.refs = refSet{}
}

// interrupt marks the block's echo as no longer rewritable: other output
// is about to be written to the screen after it, on a new line. What the
// echo holds back is written first; midLine says the cursor is left
// mid-line, and the caller ends the line before writing anything else.
func (m *markdown) interrupt(w *bufio.Writer) (midLine bool) {
	if m.echoed > 0 {
		m.raw = true
	}
	m.flushEcho(w)
	midLine = m.shown > 0
	m.col, m.line, m.shown = 0, m.line[:0], 0
	return midLine
}

// dropLeadingBlankLines removes complete blank lines before any content
// of the block: they only separate blocks.
func (m *markdown) dropLeadingBlankLines() {
	for !m.content && m.echoed == 0 {
		i := bytes.IndexByte(m.buf, '\n')
		if i < 0 || len(bytes.TrimSpace(m.buf[:i])) > 0 {
			return
		}
		m.buf = m.buf[:copy(m.buf, m.buf[i+1:])]
		m.scanned = 0
	}
}

// boundary scans the complete lines not scanned yet and returns the end
// offset of the first complete block, or -1.
func (m *markdown) boundary() int {
	for {
		i := bytes.IndexByte(m.buf[m.scanned:], '\n')
		if i < 0 {
			return -1
		}
		line := m.buf[m.scanned : m.scanned+i]
		m.scanned += i + 1
		trimmed := string(bytes.TrimSpace(line))
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		switch {
		case m.fence != "":
			if closesFence(trimmed, m.fence) {
				m.fence = ""
				return m.scanned
			}
		case indent < 4 && fenceMarker(trimmed) != "":
			m.fence = fenceMarker(trimmed)
			m.content = true
		case trimmed == "":
			if m.content {
				return m.scanned
			}
		default:
			m.content = true
		}
	}
}

// fenceMarker returns the run of ` or ~ (three or more) opening a fence.
func fenceMarker(trimmed string) string {
	if len(trimmed) < 3 || (trimmed[0] != '`' && trimmed[0] != '~') {
		return ""
	}
	n := len(trimmed) - len(strings.TrimLeft(trimmed, trimmed[:1]))
	if n < 3 {
		return ""
	}
	return trimmed[:n]
}

// closesFence reports whether a trimmed line closes the fence marker.
func closesFence(trimmed, marker string) bool {
	return len(trimmed) >= len(marker) && strings.Trim(trimmed, marker[:1]) == ""
}

// finish puts buf[:end] on screen as one block and starts the next.
func (m *markdown) finish(w *bufio.Writer, end int) {
	block := m.buf[:end]
	switch {
	case m.raw:
		// The blank lines ending the block are left to the separator
		// written before the next one.
		m.echo(w, bytes.TrimRight(block[m.echoed:], " \t\n"))
		m.flushEcho(w)
		if m.col != 0 {
			_ = w.WriteByte('\n')
		}
		m.inList = false
	default:
		out, ok := m.render(block)
		if ok && out == "" {
			// A block that shows nothing, such as link reference
			// definitions: a separator already on screen serves the
			// next block.
			if m.echoed > 0 {
				m.erase(w)
				m.started = false
			}
			m.buf = m.buf[:copy(m.buf, m.buf[end:])]
			m.reset()
			return
		}
		if m.echoed > 0 {
			m.erase(w)
		} else if m.started {
			_ = w.WriteByte('\n')
		}
		if ok {
			_, _ = w.WriteString(out)
		} else {
			m.echo(w, block)
			m.flushEcho(w)
			if m.col != 0 {
				_ = w.WriteByte('\n')
			}
		}
	}
	m.buf = m.buf[:copy(m.buf, m.buf[end:])]
	m.reset()
	m.started = true
}

// reset forgets the state of the finished block.
func (m *markdown) reset() {
	m.echoed, m.scanned, m.row, m.col = 0, 0, 0, 0
	m.line, m.shown, m.word, m.wordW, m.pend = m.line[:0], 0, m.word[:0], 0, 0
	m.fence, m.content, m.raw = "", false, false
}

// erase moves the cursor back to the start of the block's echo and
// clears the screen from there.
func (m *markdown) erase(w *bufio.Writer) {
	_ = w.WriteByte('\r')
	if m.row > 0 {
		_, _ = fmt.Fprintf(w, "\x1b[%dA", m.row)
	}
	_, _ = w.WriteString("\x1b[J")
	m.row, m.col = 0, 0
	m.line, m.shown, m.word, m.wordW, m.pend = m.line[:0], 0, m.word[:0], 0, 0
}

// echo lays out raw (already sanitised) text at word boundaries and
// tracks the cursor. Blanks and the word being received are held until
// the next blank or line end places them; flushEcho writes them out.
func (m *markdown) echo(w *bufio.Writer, b []byte) {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch r {
		case '\n':
			m.placeWord(w)
			m.pend = 0
			m.newLine(w)
		case ' ':
			m.placeWord(w)
			m.pend++
		case '\t':
			m.placeWord(w)
			at := m.col + m.pend
			m.pend += (at/8+1)*8 - at
		default:
			m.word = append(m.word, b[:size]...)
			m.wordW += runeWidth(r)
		}
		b = b[size:]
	}
	if m.row >= m.height-1 {
		// The top of the block may have scrolled off the screen.
		m.raw = true
	}
}

// flushEcho writes out what the echo holds: the word being received and
// a held line.
func (m *markdown) flushEcho(w *bufio.Writer) {
	m.placeWord(w)
	m.pend = 0
	if m.shown < len(m.line) {
		_, _ = w.Write(m.line[m.shown:])
		m.shown = len(m.line)
	}
}

// placeWord puts the word received so far on the current line, or on the
// next one when it does not fit; a word wider than a line is broken
// between runes. Blanks at the start of a line are kept (indentation),
// blanks at a break are dropped.
func (m *markdown) placeWord(w *bufio.Writer) {
	if len(m.word) == 0 {
		return
	}
	switch {
	case m.col+m.pend+m.wordW <= m.width:
	case m.col > 0 && m.wordW <= m.width:
		m.newLine(w)
		m.pend = 0
	case m.col == 0 && m.pend+m.wordW > m.width:
		m.pend = 0
	}
	if m.col+m.pend+m.wordW > m.width {
		// Too wide for any line: break it between runes.
		if m.col+m.pend >= m.width {
			m.newLine(w)
		} else {
			m.place(w, []byte(spaces(m.pend)), m.pend)
		}
		for i := 0; i < len(m.word); {
			r, size := utf8.DecodeRune(m.word[i:])
			rw := runeWidth(r)
			if m.col+rw > m.width && m.col > 0 {
				m.newLine(w)
			}
			m.place(w, m.word[i:i+size], rw)
			i += size
		}
	} else {
		if m.pend > 0 {
			m.place(w, []byte(spaces(m.pend)), m.pend)
		}
		m.place(w, m.word, m.wordW)
	}
	m.word, m.wordW, m.pend = m.word[:0], 0, 0
}

// place appends text of display width tw to the current line, on screen
// unless the line is held.
func (m *markdown) place(w *bufio.Writer, text []byte, tw int) {
	m.line = append(m.line, text...)
	m.col += tw
	if !m.hold {
		_, _ = w.Write(m.line[m.shown:])
		m.shown = len(m.line)
	}
}

// newLine ends the current visual line on screen.
func (m *markdown) newLine(w *bufio.Writer) {
	_, _ = w.Write(m.line[m.shown:])
	_ = w.WriteByte('\n')
	m.row++
	m.col, m.line, m.shown = 0, m.line[:0], 0
}

// setHold turns holding the current visual line on or off. Turned on, the
// part of the line on screen is taken back (the cursor returns to the
// start of the line); turned off, the held part is written.
func (m *markdown) setHold(w *bufio.Writer, on bool) {
	if on == m.hold {
		return
	}
	m.hold = on
	if on {
		if m.shown > 0 {
			_, _ = w.WriteString("\r\x1b[K")
			m.shown = 0
		}
		return
	}
	if m.shown < len(m.line) {
		_, _ = w.Write(m.line[m.shown:])
		m.shown = len(m.line)
	}
}

// render renders one block, trimmed to its visible lines and ending with a
// newline. A panic in the renderer leaves the block raw rather than
// ending the program.
func (m *markdown) render(block []byte) (out string, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok, m.inList = "", false, false
		}
	}()
	out, m.inList = m.theme.renderRefs(string(block), m.width, m.inList, &m.refs)
	return out, true
}
