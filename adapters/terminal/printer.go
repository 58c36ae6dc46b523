package terminal

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// PrinterOptions configure a Printer.
type PrinterOptions struct {
	// Stdout receives content, tool calls and results, reasoning, and in
	// JSON mode everything.
	Stdout io.Writer
	// Stderr receives chrome and errors in text mode, and the spinner.
	Stderr io.Writer
	// IsTTY says Stdout is a terminal: content is rendered as markdown and
	// the other stdout channels are styled.
	IsTTY bool
	// StderrIsTTY says Stderr is a terminal: chrome is dimmed, errors are
	// red, and Wait shows a spinner. When both are terminals they are
	// taken to be the same screen.
	StderrIsTTY bool
	// Format is "text" (or "") or "json".
	Format string
	// Quiet silences chrome (and the spinner).
	Quiet bool
	// Width is the terminal width for markdown wrapping; 0 means 80.
	Width int
	// Height is the terminal height; 0 means 24. A streamed markdown block
	// taller than this is left as raw text (see markdown.go).
	Height int
	// Style is the markdown style: "dark" (the default) or "light" pick
	// colours for a dark or light background; "notty" and "ascii" write
	// no escape sequences and keep emphasis and code markers as written.
	// Other names (glamour's "dracula", "pink", "tokyo-night") are "dark".
	Style string
	// In is the terminal type-ahead reads keys from (StartTypeAhead); nil
	// means no type-ahead. It is used only when stdout and stderr are
	// terminals too, in text mode.
	In *os.File
	// NoColor leaves colours out (bold, italic, underline and dim stay).
	// NewPrinter sets it when the NO_COLOR environment variable is set
	// and not empty.
	NoColor bool
}

// Printer is the terminal ports.Printer. See the package doc for where
// each channel goes in each mode. It is safe for concurrent use.
type Printer struct {
	mu   sync.Mutex
	opts PrinterOptions
	json bool
	// events: a run reports its tool calls and results as records
	// (RunStart was called), so their rendered lines are left out.
	events bool

	out stream // Stdout
	err stream // Stderr

	md   *markdown  // content renderer, TTY text mode only
	spin *spinner   // nil unless the spinner may run
	ta   *typeAhead // nil unless type-ahead may run (statusline.go)
}

// stream is one output stream and what was last written to it.
type stream struct {
	w *bufio.Writer
	// ch is the channel of the last text written.
	ch ports.Channel
	// midLine is true when the last text did not end with a newline.
	midLine bool
	// tty says the stream is a terminal.
	tty bool
}

var _ ports.Printer = (*Printer)(nil)

// SetStyle implements ports.Styler: the markdown theme for a light or a
// dark background, and code without colours. A style named for no colour
// (notty, ascii) stays as it is.
func (p *Printer) SetStyle(s ports.OutputStyle) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.md == nil || p.md.theme.plain {
		return
	}
	name := "dark"
	if s.Light {
		name = "light"
	}
	t := newTheme(name, p.opts.NoColor)
	if s.NoCodeColor {
		t.code, t.block = "", ""
	}
	p.md.theme = t
}

// NewPrinter returns a Printer. Nil writers are replaced by io.Discard.
func NewPrinter(opts PrinterOptions) *Printer {
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.Width <= 0 {
		opts.Width = 80
	}
	if opts.Height <= 0 {
		opts.Height = 24
	}
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	p := &Printer{
		opts: opts,
		json: opts.Format == "json",
		out:  stream{w: bufio.NewWriterSize(opts.Stdout, 64<<10), tty: opts.IsTTY},
		err:  stream{w: bufio.NewWriterSize(opts.Stderr, 4<<10), tty: opts.StderrIsTTY},
	}
	if !p.json && opts.IsTTY {
		p.md = newMarkdown(opts.Width, opts.Height, opts.Style, opts.NoColor)
	}
	if !p.json && opts.StderrIsTTY && !opts.Quiet {
		p.spin = &spinner{}
	}
	if !p.json && opts.IsTTY && opts.StderrIsTTY && opts.In != nil {
		p.ta = &typeAhead{in: opts.In}
	}
	return p
}

// Write prints text on channel ch. In piped text mode the cost is one
// buffered write: no allocation, no flush.
func (p *Printer) Write(ch ports.Channel, text string) {
	if text == "" || (ch == ports.ChannelChrome && p.opts.Quiet) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json && ch != ports.ChannelChrome && ch != ports.ChannelError {
		// Chrome and errors stay plain lines on stderr: stdout is only
		// the JSON records.
		p.writeJSON(ch, text)
		return
	}
	s := p.route(ch)
	label := ch == ports.ChannelReasoning && s.tty && s.ch != ch
	p.prepare(s, ch)
	if label {
		// A reasoning block starts: say what it is, so it is never read
		// as the answer.
		p.writeStyled(s, ch, "reasoning: ")
	}
	switch {
	case s.tty && ch == ports.ChannelContent:
		s.midLine = p.md.write(s.w, text)
	case s.tty:
		p.writeStyled(s, ch, text)
		s.midLine = text[len(text)-1] != '\n'
	default:
		// Piped or redirected output reaches a terminal just as often
		// (jp q ... | less -R, | cat): it is sanitised all the same.
		_ = safetext.WriteString(s.w, text)
		s.midLine = text[len(text)-1] != '\n'
	}
	if p.ta != nil {
		p.redrawStatus()
	}
	if s.tty || s == &p.err {
		_ = s.w.Flush()
	}
}

// Usage shows a turn's tokens and the context meter: a chrome line
// ("tokens: ... · $0.0123 · ctx 41k/200k"), or in JSON mode a record that
// --quiet keeps (it is data, not chrome):
//
//	{"type":"usage","model":"anthropic/claude-sonnet-4-5","input_tokens":1200,"output_tokens":56,"reasoning_tokens":0,"cache_read_tokens":1000,"cache_write_tokens":0,"cost_usd":0.0045,"context_tokens":41000,"context_window":200000}
//
// A turn without reported usage shows the meter alone, and has no record.
func (p *Printer) Usage(r ports.UsageReport) {
	if p.json {
		if r.Usage.IsZero() {
			return
		}
		rec := usageRecord{Type: "usage", Model: r.Model,
			InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens, ReasoningTokens: r.Usage.ReasoningTokens,
			CacheReadTokens: r.Usage.CacheReadTokens, CacheWriteTokens: r.Usage.CacheWriteTokens,
			ContextTokens: r.Context.Tokens}
		if r.Priced {
			rec.CostUSD = &r.Cost
		}
		if r.Context.Window > 0 {
			rec.ContextWindow = &r.Context.Window
		}
		p.record(rec) // the model name is the provider's text: record sanitises it
		return
	}
	line := r.Context.String()
	if !r.Usage.IsZero() {
		line = "tokens: " + r.Usage.Text()
		if r.Priced {
			line += fmt.Sprintf(" · $%.4f", r.Cost)
		}
		line += " · " + r.Context.String()
	}
	p.Write(ports.ChannelChrome, line)
	p.EndBlock(ports.ChannelChrome)
}

// EndBlock ends the current block of ch: renders pending markdown, ends
// an unterminated line, and flushes. In JSON mode it prints an end record.
func (p *Printer) EndBlock(ch ports.Channel) {
	if ch == ports.ChannelChrome && p.opts.Quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json && ch != ports.ChannelChrome && ch != ports.ChannelError {
		_ = p.out.w.Flush()
		return
	}
	s := p.route(ch)
	if s.tty && ch == ports.ChannelContent {
		p.clearSpinner()
		p.clearStatus()
		p.md.end(s.w)
		if s.ch == ch {
			s.midLine = false
		}
	}
	if s.ch == ch {
		p.clearSpinner()
		p.clearStatus()
		if s.midLine {
			_ = s.w.WriteByte('\n')
			s.midLine = false
		}
	}
	if p.ta != nil {
		if s == &p.err {
			_ = p.out.w.Flush() // the status line's clear goes first
		}
		p.redrawStatus()
	}
	_ = s.w.Flush()
}

// Suspend stops spinner frames, ends a half-written line and makes the
// content on screen final (the markdown renderer will not rewrite it), so
// that a menu or prompt can draw below it. resume lets spinners draw again.
func (p *Printer) Suspend() (resume func()) {
	// Key reading stops first: the menu or prompt reads the keys.
	p.pauseTypeAhead()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearSpinner()
	p.clearStatus()
	if p.md != nil && p.md.hold {
		p.md.setHold(p.out.w, false)
		if p.out.ch == ports.ChannelContent {
			p.out.midLine = p.md.shown > 0
		}
	}
	if p.spin != nil {
		p.spin.paused++
	}
	if !p.json {
		for _, s := range []*stream{&p.out, &p.err} {
			if s == &p.out && p.md != nil {
				s.midLine = p.md.interrupt(s.w) || s.midLine
			}
			if s.midLine && s.tty {
				_ = s.w.WriteByte('\n')
				s.midLine = false
			}
			_ = s.w.Flush()
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			if p.spin != nil && p.spin.paused > 0 {
				p.spin.paused--
			}
			p.mu.Unlock()
			p.resumeTypeAhead()
		})
	}
}

// Flush writes out anything buffered.
func (p *Printer) Flush() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.out.w.Flush()
	if e := p.err.w.Flush(); err == nil {
		err = e
	}
	return err
}

// route returns the stream a channel goes to in text mode. Tool calls and
// their results go to stderr, and so does reasoning when stdout is not a
// terminal: stdout carries the answer alone (jp q ... > answer.txt).
func (p *Printer) route(ch ports.Channel) *stream {
	if ch == ports.ChannelChrome || ch == ports.ChannelError || ch == ports.ChannelToolCall || ch == ports.ChannelToolResult ||
		(ch == ports.ChannelReasoning && !p.out.tty) {
		return &p.err
	}
	return &p.out
}

// prepare gets stream s ready for text on ch: it clears the spinner, keeps
// stdout and stderr in order, and starts a new line when the channel
// changes mid-line (on the stream, or on a screen both streams share).
func (p *Printer) prepare(s *stream, ch ports.Channel) {
	p.clearSpinner()
	p.clearStatus()
	other := &p.out
	if s == &p.out {
		other = &p.err
	}
	if s == &p.err {
		// stdout first, so that a chrome or error line comes after the
		// content written before it.
		_ = p.out.w.Flush()
	}
	shared := s.tty && other.tty
	if shared && other == &p.out && p.md != nil && p.out.ch == ports.ChannelContent {
		// Content on the same screen is followed by other output: what
		// the echo holds goes out first, and the block is final.
		other.midLine = p.md.interrupt(other.w) || other.midLine
	}
	if shared && other.midLine {
		_ = other.w.WriteByte('\n')
		_ = other.w.Flush()
		other.midLine = false
	}
	if s.ch != ch {
		if s.midLine {
			if s == &p.out && p.md != nil {
				p.md.interrupt(s.w)
			}
			_ = s.w.WriteByte('\n')
			s.midLine = false
		}
		if s == &p.out && p.md != nil && s.ch == ports.ChannelContent {
			// Another channel interleaves with a content block: what is
			// on screen can no longer be rewritten.
			if p.md.interrupt(s.w) {
				_ = s.w.WriteByte('\n')
			}
		}
		s.ch = ch
	}
}

// ANSI styles for the TTY.
const (
	sgrReset = "\x1b[0m"
	sgrDim   = "\x1b[2m"
	sgrRed   = "\x1b[31m"
	sgrCyan  = "\x1b[36m"
)

// writeStyled writes a non-content channel on a terminal, with control
// characters neutralised: the text may come from a model, a tool or a
// plugin.
func (p *Printer) writeStyled(s *stream, ch ports.Channel, text string) {
	style := ""
	switch ch {
	case ports.ChannelChrome, ports.ChannelReasoning, ports.ChannelToolResult:
		style = sgrDim
	case ports.ChannelError:
		style = sgrRed
	case ports.ChannelToolCall:
		style = sgrCyan
	}
	if p.opts.NoColor && style != sgrDim {
		style = ""
	}
	_, _ = s.w.WriteString(style)
	// A chrome countdown redraws its line with a leading "\r"; any other
	// CR is shown, as the sanitiser shows it.
	if ch == ports.ChannelChrome && text[0] == '\r' {
		_ = s.w.WriteByte('\r')
		text = text[1:]
	} else if ch == ports.ChannelChrome && !s.midLine {
		text = wrapChrome(text, p.opts.Width)
	}
	_ = safetext.WriteString(s.w, text)
	_, _ = s.w.WriteString(sgrReset)
}
