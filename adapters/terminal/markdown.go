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
	// block's raw echo.
	row, col int
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
	return m.col != 0
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
// is about to be written to the screen after it, on a new line.
func (m *markdown) interrupt() {
	if m.echoed > 0 {
		m.raw = true
	}
	// The caller ends the line before writing anything else.
	m.col = 0
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
}

// echo writes raw (already sanitised) text and tracks the cursor.
func (m *markdown) echo(w *bufio.Writer, b []byte) {
	_, _ = w.Write(b)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch r {
		case '\n':
			m.row++
			m.col = 0
			continue
		case '\t':
			m.col = min((m.col/8+1)*8, m.width)
			continue
		}
		rw := runeWidth(r)
		if m.col+rw > m.width {
			m.row++
			m.col = 0
		}
		m.col += rw
	}
	if m.row >= m.height-1 {
		// The top of the block may have scrolled off the screen.
		m.raw = true
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
