package terminal

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

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
	old, err := term.MakeRaw(fd)
	if err != nil {
		return ports.Answer{}, fmt.Errorf("%w: cannot put the terminal in raw mode: %v", ports.ErrUnavailable, err)
	}
	defer func() { _ = term.Restore(fd, old) }()

	out := p.opts.Out
	// Raw mode turns off output post-processing: lines end with \r\n.
	fmt.Fprintf(out, "\x1b[1m%s\x1b[0m\r\n%s ", oneLine(q.Message), menuLine(q.Options))
	finish := func(result string) {
		fmt.Fprintf(out, "%s› %s%s\r\n", sgrDim, result, sgrReset)
	}

	buf := make([]byte, 64)
	for {
		n, err := readKeys(ctx, p.opts.In, buf)
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

// menuLine renders "[y] run  [Y] run, remember for this run ...".
func menuLine(opts []ports.Option) string {
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = fmt.Sprintf("\x1b[1m[%s]\x1b[0m %s", oneLine(o.Key), oneLine(o.Label))
	}
	return strings.Join(parts, "  ")
}
