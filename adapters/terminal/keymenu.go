package terminal

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"

	"github.com/jpcli/jp/ports"
)

// keyMenu asks a select whose options all have a Key as an inline menu:
//
//	Run tool bash {"cmd":"ls"}?
//	[y] run  [Y] run, remember for this run  [n] skip  [N] skip, remember for this run › Y
//
// One key press chooses, case-sensitively; ESC cancels, Ctrl-C
// interrupts; other keys are ignored. huh has no single-key,
// case-sensitive choice, so the terminal is put in raw mode here and read
// a chunk at a time: an ESC byte that ends a chunk is the ESC key; other
// escape sequences (arrow keys and the like) are skipped. The terminal
// is restored on every return, panics included.
func (p *Prompter) keyMenu(ctx context.Context, q ports.Question) (ports.Answer, error) {
	fd := int(p.opts.In.Fd())
	restore, err := makeRaw(fd)
	if err != nil {
		return ports.Answer{}, fmt.Errorf("%w: cannot put the terminal in raw mode: %v", ports.ErrUnavailable, err)
	}
	defer restore()

	out := p.opts.Out
	// The question and the menu are laid out at word boundaries at the
	// terminal's width, and laid out again when it is resized.
	width := p.width()
	lines := layoutMenu(q.Message, q.Options, width)
	drawMenu(out, lines)
	finish := func(result string) {
		last := lines[len(lines)-1].width + 1
		if width > 0 && last+2+ansi.StringWidth(result) > width {
			fmt.Fprint(out, "\r\n")
		}
		fmt.Fprintf(out, "%s› %s%s\r\n", sgrDim, result, sgrReset)
	}

	resize, stopResize := watchResize()
	defer stopResize()
	buf := make([]byte, 64)
	for {
		n, resized, err := readKeysOrResize(ctx, p.opts.In, buf, resize)
		if resized {
			nw := p.width()
			eraseMenu(out, lines, nw)
			width = nw
			lines = layoutMenu(q.Message, q.Options, width)
			drawMenu(out, lines)
			if n == 0 {
				continue
			}
		}
		if err != nil {
			finish("cancelled")
			if ctx.Err() != nil {
				return ports.Answer{}, ctx.Err()
			}
			return ports.Answer{}, fmt.Errorf("read key: %v: %w", err, ports.ErrUnavailable)
		}
		key, ok := pickKey(buf[:n], q.Options)
		if !ok {
			continue
		}
		switch key {
		case keyEsc:
			finish("cancelled")
			return ports.Answer{}, fmt.Errorf("prompt: %w", ports.ErrCancelled)
		case keyCtrlC:
			finish("interrupted")
			return ports.Answer{}, fmt.Errorf("prompt: %w", ports.ErrInterrupted)
		}
		for _, o := range q.Options {
			if o.Key == key {
				label := o.Label
				if label == "" {
					label = o.Key
				}
				finish(oneLine(label))
				return ports.Answer{Text: o.Answer()}, nil
			}
		}
	}
}

// width is the prompt terminal's width in columns; 0 when unknown (no
// wrapping).
func (p *Prompter) width() int {
	if p.opts.Out == nil {
		return 0
	}
	w, _, err := term.GetSize(int(p.opts.Out.Fd()))
	if err != nil || w <= 0 {
		return 0
	}
	return w
}

// readKeysOrResize reads keys as readKeys does, and reports resized
// when the terminal is resized meanwhile (with n > 0 when a key was read
// as well). The goroutine that
// watches for the resize is stopped before it returns.
func readKeysOrResize(ctx context.Context, f *os.File, buf []byte, resize <-chan os.Signal) (n int, resized bool, err error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-resize:
			resized = true
			cancel()
		case <-stop:
		}
	}()
	n, err = readKeys(rctx, f, buf)
	close(stop)
	<-done
	if resized && ctx.Err() == nil {
		// A key read as the resize came is kept, not dropped: the
		// caller lays the menu out again and then takes the key.
		if err != nil {
			n = 0
		}
		return n, true, nil
	}
	return n, false, err
}

// menuRow is one laid-out row of a key menu: the text with its styling
// and its width in columns.
type menuRow struct {
	text  string
	width int
}

// layoutMenu lays out the question (bold) and its options at width
// (0: one line each). Lines break between words, never inside one; an
// option "[k] label" stays on one row unless it is wider than the row,
// and options are separated by two spaces.
func layoutMenu(message string, opts []ports.Option, width int) []menuRow {
	var rows []menuRow
	for _, l := range wrapPlain(oneLine(message), width) {
		rows = append(rows, menuRow{text: "\x1b[1m" + l + "\x1b[0m", width: ansi.StringWidth(l)})
	}
	var cur menuRow
	for _, o := range opts {
		key, label := "["+oneLine(o.Key)+"]", oneLine(o.Label)
		unit := key + " " + label
		uw := ansi.StringWidth(unit)
		sep := 0
		if cur.width > 0 {
			sep = 2
		}
		if width > 0 && cur.width > 0 && cur.width+sep+uw+1 > width {
			rows = append(rows, cur)
			cur, sep = menuRow{}, 0
		}
		if sep > 0 {
			cur.text += "  "
			cur.width += 2
		}
		parts := wrapPlain(unit, width-1)
		for j, part := range parts {
			if j > 0 {
				rows = append(rows, cur)
				cur = menuRow{}
			}
			styled := part
			if j == 0 {
				styled = "\x1b[1m" + key + "\x1b[0m" + strings.TrimPrefix(part, key)
			}
			cur.text += styled
			cur.width += ansi.StringWidth(part)
		}
	}
	return append(rows, cur)
}

// wrapPlain wraps text without escape sequences at word boundaries to
// width columns (a word wider than the row is broken); width <= 0 keeps
// it on one line.
func wrapPlain(s string, width int) []string {
	if width <= 0 {
		return []string{s}
	}
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
}

// drawMenu writes the rows (raw mode: lines end with \r\n), leaving the
// cursor after the last row and a space.
func drawMenu(out io.Writer, rows []menuRow) {
	for i, r := range rows {
		if i > 0 {
			fmt.Fprint(out, "\r\n")
		}
		fmt.Fprint(out, r.text)
	}
	fmt.Fprint(out, " ")
}

// eraseMenu clears the rows drawMenu wrote, the cursor being after the
// last one, once the terminal is width columns wide: a terminal that
// reflows long lines on a resize (tmux, most emulators) shows a row
// wider than the new width on several lines.
func eraseMenu(out io.Writer, rows []menuRow, width int) {
	up := 0
	for i, r := range rows {
		w := r.width
		if i == len(rows)-1 {
			w++ // the space after the menu
		}
		n := 1
		if width > 0 && w > width {
			n = (w + width - 1) / width
		}
		up += n
	}
	if up > 1 {
		fmt.Fprintf(out, "\x1b[%dA", up-1)
	}
	fmt.Fprint(out, "\r\x1b[J")
}

// Pseudo keys pickKey returns besides option keys.
const (
	keyEsc   = "\x1b"
	keyCtrlC = "\x03"
)

// pickKey scans a chunk read from the terminal and returns the first key
// that means something: an option's key, keyEsc (a lone ESC) or keyCtrlC.
// Escape sequences (arrows, function keys, Alt+key) are skipped.
func pickKey(chunk []byte, opts []ports.Option) (string, bool) {
	for i := 0; i < len(chunk); {
		c := chunk[i]
		switch {
		case c == 0x03:
			return keyCtrlC, true
		case c == 0x1b && i+1 == len(chunk):
			return keyEsc, true
		case c == 0x1b:
			i += escapeLen(chunk[i:])
			continue
		}
		r, size := utf8.DecodeRune(chunk[i:])
		i += size
		for _, o := range opts {
			if o.Key == string(r) {
				return o.Key, true
			}
		}
	}
	return "", false
}

// escapeLen returns the length of the escape sequence at the start of b
// (which starts with ESC): CSI "ESC [ ... final", SS3 "ESC O x", or
// Alt+key "ESC x".
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return len(b)
	}
	switch b[1] {
	case '[':
		for j := 2; j < len(b); j++ {
			if b[j] >= 0x40 && b[j] <= 0x7e {
				return j + 1
			}
		}
		return len(b)
	case 'O':
		return min(3, len(b))
	}
	_, size := utf8.DecodeRune(b[1:])
	return 1 + size
}
