package terminal

import (
	"context"
	"os"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// The printer-owned status line (the Rust jp's RFD 091) carries
// type-ahead: while a turn streams or tools run, what the user types
// shows on one line below the output. The printer clears the line before
// any write and draws it again after, at the start of a line, so output
// and typing never tear each other; while it is shown the markdown echo
// holds its in-progress line back (markdown.hold), which keeps the
// cursor at the start of a line for it. Enter hands the line to the
// caller (a queued reply), Esc clears it, Ctrl-C stays a signal (the
// interrupt menus, which Suspend the printer: key reading stops while
// they read the keys).

var _ ports.TypeAhead = (*Printer)(nil)

// typeAhead is the status line's state. text, queued and drawn are
// guarded by Printer.mu; the reader's life by life.
type typeAhead struct {
	in *os.File

	text   []rune
	queued int  // lines submitted since StartTypeAhead
	drawn  bool // the status line is on screen

	life   sync.Mutex
	submit func(string)
	active bool // between StartTypeAhead and its stop
	paused int  // Suspend calls not yet resumed
	cancel context.CancelFunc
	done   chan struct{}
}

// StartTypeAhead implements ports.TypeAhead.
func (p *Printer) StartTypeAhead(submit func(string)) (ports.TypeAheadHandle, bool) {
	ta := p.ta
	if ta == nil {
		return nil, false
	}
	ta.life.Lock()
	defer ta.life.Unlock()
	if ta.active {
		return nil, false
	}
	ta.active, ta.submit = true, submit
	if ta.paused == 0 {
		p.startReader()
	}
	return &typeAheadHandle{p: p}, true
}

// typeAheadHandle is one StartTypeAhead.
type typeAheadHandle struct {
	p    *Printer
	once sync.Once
}

// Taken implements ports.TypeAheadHandle.
func (h *typeAheadHandle) Taken() {
	p := h.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ta.queued == 0 {
		return
	}
	p.ta.queued = 0
	p.clearStatus()
	p.redrawStatus()
}

// Stop implements ports.TypeAheadHandle.
func (h *typeAheadHandle) Stop() string {
	p, ta := h.p, h.p.ta
	unsent := ""
	h.once.Do(func() {
		ta.life.Lock()
		p.stopReader()
		ta.active, ta.submit = false, nil
		ta.life.Unlock()
		p.mu.Lock()
		unsent = strings.TrimSpace(string(ta.text))
		ta.text, ta.queued = nil, 0
		p.clearStatus()
		p.drawStatus()
		p.flushBoth()
		p.mu.Unlock()
	})
	return unsent
}

// pauseTypeAhead stops reading keys for a menu or prompt (Suspend).
func (p *Printer) pauseTypeAhead() {
	ta := p.ta
	if ta == nil {
		return
	}
	ta.life.Lock()
	ta.paused++
	p.stopReader()
	ta.life.Unlock()
}

// resumeTypeAhead undoes one pauseTypeAhead.
func (p *Printer) resumeTypeAhead() {
	ta := p.ta
	if ta == nil {
		return
	}
	ta.life.Lock()
	if ta.paused > 0 {
		ta.paused--
	}
	if ta.paused == 0 && ta.active {
		p.startReader()
	}
	ta.life.Unlock()
}

// startReader puts the terminal in a mode with no echo and no line
// editing (signals and output processing stay, so Ctrl-C is a signal and
// "\n" a new line) and reads keys until stopReader. Called with ta.life
// held.
func (p *Printer) startReader() {
	ta := p.ta
	if ta.cancel != nil {
		return
	}
	restore, err := keysMode(ta.in)
	if err != nil {
		return // not a terminal we can read keys from: no type-ahead
	}
	ctx, cancel := context.WithCancel(context.Background())
	ta.cancel, ta.done = cancel, make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		defer restore()
		buf := make([]byte, 256)
		for {
			n, err := readKeys(ctx, ta.in, buf)
			if err != nil {
				return
			}
			p.typed(buf[:n])
		}
	}(ta.done)
	p.mu.Lock()
	p.redrawStatus()
	p.mu.Unlock()
}

// stopReader stops the key reader and waits for it (the terminal mode is
// restored as it ends). Called with ta.life held.
func (p *Printer) stopReader() {
	ta := p.ta
	if ta.cancel == nil {
		return
	}
	ta.cancel()
	<-ta.done
	ta.cancel, ta.done = nil, nil
}

// typed applies one chunk of keys: printable text is added, Backspace
// removes a character, Ctrl-U and Esc clear the line, Enter submits it;
// other control keys and escape sequences (arrows) are ignored.
func (p *Printer) typed(b []byte) {
	ta := p.ta
	var submitted []string
	ctrlC := false
	p.mu.Lock()
	if len(b) == 1 && b[0] == 0x1b {
		ta.text = ta.text[:0] // Esc alone
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x1b:
			i += max(escapeLen(b[i:]), 1) // keymenu.go
			continue
		case c == '\r' || c == '\n':
			if line := strings.TrimSpace(string(ta.text)); line != "" {
				submitted = append(submitted, line)
				ta.queued++
			}
			ta.text = ta.text[:0]
		case c == 0x7f || c == 0x08:
			if len(ta.text) > 0 {
				ta.text = ta.text[:len(ta.text)-1]
			}
		case c == 0x15: // Ctrl-U
			ta.text = ta.text[:0]
		case c == 0x03:
			// A Ctrl-C typed while a raw-mode menu was closing reaches
			// the reader as a byte (signals are on in its mode): it is
			// still a press.
			ctrlC = true
		case c < 0x20:
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r != utf8.RuneError && unicode.IsPrint(r) {
				ta.text = append(ta.text, r)
			}
			i += size
			continue
		}
		i++
	}
	p.clearStatus()
	p.redrawStatus()
	submit := ta.submit
	p.mu.Unlock()
	if ctrlC {
		pressCtrlC()
	}
	if submit != nil {
		for _, s := range submitted {
			submit(s)
		}
	}
}

// statusVisible reports whether the status line has something to show.
// Called with p.mu held.
func (p *Printer) statusVisible() bool {
	ta := p.ta
	return ta != nil && ta.cancel != nil && (len(ta.text) > 0 || ta.queued > 0)
}

// statusLabel is the status line's text, cut to the width (the end of
// what is typed stays in view).
func (p *Printer) statusLabel() string {
	ta := p.ta
	prefix := "› "
	if ta.queued > 0 {
		prefix = "reply queued, sent when this turn ends › "
		if len(ta.text) > 0 {
			prefix = "[queued] › "
		}
	}
	text := safetext.String(string(ta.text))
	room := max(p.opts.Width-1-runewidth.StringWidth(prefix), 4)
	if runewidth.StringWidth(text) > room {
		r := []rune(text)
		for runewidth.StringWidth(string(r)) > room-1 {
			r = r[1:]
		}
		text = "…" + string(r)
	}
	line := prefix + text
	if hint := "  (enter: queue reply · esc: clear)"; len(ta.text) > 0 && runewidth.StringWidth(line+hint) < p.opts.Width {
		return line + sgrDim + hint
	}
	// Never the last column, where a terminal may wrap.
	return runewidth.Truncate(line, max(p.opts.Width-1, 1), "…")
}

// drawStatus shows the status line at the cursor when it has something
// to show and the cursor is at the start of a line; it also sets the
// markdown echo's hold to match. Called with p.mu held.
func (p *Printer) drawStatus() {
	visible := p.statusVisible()
	if p.md != nil && p.md.hold != visible {
		p.md.setHold(p.out.w, visible)
		if p.out.ch == ports.ChannelContent {
			p.out.midLine = p.md.shown > 0
		}
	}
	if !visible || p.ta.drawn || p.out.midLine || p.err.midLine {
		return
	}
	p.clearSpinner()
	// Drawn and cleared through stdout (a terminal whenever type-ahead
	// runs): with the content it goes out in one write, so a redraw never
	// flickers, and it is ordered with the content by construction.
	_, _ = p.out.w.WriteString("\r" + sgrCyan + p.statusLabel() + sgrReset + "\x1b[K")
	p.ta.drawn = true
}

// clearStatus erases the status line if it is drawn. Called with p.mu
// held.
func (p *Printer) clearStatus() {
	if p.ta == nil || !p.ta.drawn {
		return
	}
	_, _ = p.out.w.WriteString("\r\x1b[K")
	p.ta.drawn = false
}

// flushBoth flushes stdout, then stderr. Called with p.mu held.
func (p *Printer) flushBoth() {
	_ = p.out.w.Flush()
	_ = p.err.w.Flush()
}

// redrawStatus puts out what is written (stdout, then stderr: each
// write cleared the status line first), then draws the status line again
// below it. Called with p.mu held.
func (p *Printer) redrawStatus() {
	p.flushBoth()
	p.drawStatus()
	_ = p.out.w.Flush()
}
