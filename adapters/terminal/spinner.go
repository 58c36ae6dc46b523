package terminal

import (
	"fmt"
	"sync"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/jpcli/jp/internal/safetext"
)

// spinnerInterval is how often the spinner redraws.
var spinnerInterval = 100 * time.Millisecond

// spinnerDelay is how long a wait lasts before the spinner shows, so
// short waits never flash.
const spinnerDelay = 300 * time.Millisecond

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinner is the state of Wait. All fields are guarded by Printer.mu.
type spinner struct {
	waits  []wait
	nextID int
	frame  int
	// drawn is true while a spinner line is on screen.
	drawn bool
	// paused counts Suspend calls not yet resumed: no frame is drawn.
	paused int
	// stop and done belong to the running animation goroutine, if any.
	stop, done chan struct{}
}

// wait is one pending Wait call.
type wait struct {
	id    int
	label string
	since time.Time
}

// Wait shows a spinner with label on stderr until stop is called, from
// 300 ms (spinnerDelay) after the oldest pending wait began. It is a
// no-op unless stderr is a terminal (and not in JSON or quiet mode).
// The label is made safe (control bytes shown, not sent) and cut to the
// terminal's width, so that clearing the line clears all of it.
// Concurrent waits share one spinner line showing the latest label. Any
// other output clears the line first; the spinner comes back on its next
// frame when the cursor is at the start of a line. stop is idempotent and
// waits for the animation goroutine to end once no wait is left.
func (p *Printer) Wait(label string) (stop func()) {
	if p.spin == nil {
		return func() {}
	}
	p.mu.Lock()
	sp := p.spin
	sp.nextID++
	id := sp.nextID
	sp.waits = append(sp.waits, wait{id: id, label: label, since: time.Now()})
	if sp.stop == nil {
		sp.stop, sp.done = make(chan struct{}), make(chan struct{})
		go p.animate(sp.stop, sp.done)
	}
	p.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { p.endWait(id) }) }
}

// endWait removes one wait; the last one stops the animation and clears
// the line.
func (p *Printer) endWait(id int) {
	p.mu.Lock()
	sp := p.spin
	for i, w := range sp.waits {
		if w.id == id {
			sp.waits = append(sp.waits[:i], sp.waits[i+1:]...)
			break
		}
	}
	if len(sp.waits) > 0 || sp.stop == nil {
		p.mu.Unlock()
		return
	}
	p.clearSpinner()
	stop, done := sp.stop, sp.done
	sp.stop, sp.done = nil, nil
	close(stop)
	p.mu.Unlock()
	<-done
}

// animate draws a frame every spinnerInterval until stop is closed.
func (p *Printer) animate(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(spinnerInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			select {
			case <-stop:
			default:
				p.drawSpinner()
			}
			p.mu.Unlock()
		}
	}
}

// drawSpinner draws the current frame if the cursor is at the start of a
// line. Called with p.mu held.
func (p *Printer) drawSpinner() {
	sp := p.spin
	if len(sp.waits) == 0 || sp.paused > 0 || p.err.midLine || (p.out.tty && p.out.midLine) || p.statusVisible() {
		return
	}
	if time.Since(sp.waits[0].since) < spinnerDelay {
		return
	}
	w := sp.waits[len(sp.waits)-1]
	label := safetext.String(w.label)
	if n := len(sp.waits) - 1; n > 0 {
		label += fmt.Sprintf(" (+%d more)", n)
	}
	if d := time.Since(w.since); d >= 2*time.Second {
		label += fmt.Sprintf(" %ds", int(d.Seconds()))
	}
	sp.frame = (sp.frame + 1) % len(spinnerFrames)
	width := p.opts.Width
	if width <= 0 {
		width = 80
	}
	// The frame and a space take two cells; one is left free so that the
	// line never reaches the last column (where a terminal may wrap).
	label = runewidth.Truncate(label, max(width-3, 1), "…")
	_, _ = p.err.w.WriteString("\r" + sgrDim + spinnerFrames[sp.frame] + " " + label + sgrReset + "\x1b[K")
	_ = p.err.w.Flush()
	sp.drawn = true
}

// clearSpinner erases the spinner line if it is drawn. Called with p.mu
// held.
func (p *Printer) clearSpinner() {
	if p.spin == nil || !p.spin.drawn {
		return
	}
	_, _ = p.err.w.WriteString("\r\x1b[K")
	_ = p.err.w.Flush()
	p.spin.drawn = false
}
