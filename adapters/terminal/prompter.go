package terminal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/huh"

	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// PrompterOptions configure a Prompter.
type PrompterOptions struct {
	// In is the terminal to read keys from.
	In *os.File
	// Out is the terminal to draw prompts on.
	Out *os.File
	// Interactive says prompts may be shown: In and Out are terminals and
	// prompting is not disabled. When false every question answers
	// ports.ErrUnavailable.
	Interactive bool
	// Editor is the external editor command ($VISUAL or $EDITOR, resolved
	// by the caller), split on spaces: "vim -u NONE".
	Editor string
	// TempDir is where the external editor's file is written; "" means
	// os.TempDir().
	TempDir string
	// Pager shows a diff longer than the screen ($PAGER, split on
	// spaces); "" means "less -RFX" when less is installed, else the diff
	// is printed whole.
	Pager string
	// Height is the terminal's height in lines; 0 asks the terminal.
	Height int
}

// Prompter is the terminal ports.Prompter: huh forms for confirm, select,
// text and secret, an inline one-key menu for selects whose options have
// keys, an inline multi-line composer, and the external editor.
//
// ESC answers ports.ErrCancelled, Ctrl-C ports.ErrInterrupted, and a
// prompter that is not interactive ports.ErrUnavailable; library errors
// never cross the port. One prompt is shown at a time: concurrent calls
// wait for each other.
type Prompter struct {
	opts PrompterOptions
	mu   sync.Mutex
}

var _ ports.Prompter = (*Prompter)(nil)

// NewPrompter returns a Prompter.
func NewPrompter(opts PrompterOptions) *Prompter {
	return &Prompter{opts: opts}
}

// Interactive reports whether questions can be asked.
func (p *Prompter) Interactive() bool {
	return p.opts.Interactive && p.opts.In != nil && p.opts.Out != nil
}

// errNoTerminal is returned when the prompter is not interactive.
var errNoTerminal = fmt.Errorf("no interactive terminal: %w", ports.ErrUnavailable)

// Ask asks one question.
func (p *Prompter) Ask(ctx context.Context, q ports.Question) (ports.Answer, error) {
	if !p.Interactive() {
		return ports.Answer{}, errNoTerminal
	}
	if err := ctx.Err(); err != nil {
		return ports.Answer{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if q.Diff != "" {
		p.showDiff(ctx, q.Diff)
	}
	switch q.Kind {
	case ports.QuestionConfirm:
		return p.confirm(ctx, q)
	case ports.QuestionSelect:
		if len(q.Options) == 0 {
			return ports.Answer{}, fmt.Errorf("select %q has no options", q.Message)
		}
		if hasKeys(q.Options) {
			return p.keyMenu(ctx, q)
		}
		return p.selectOne(ctx, q)
	case ports.QuestionText, ports.QuestionSecret:
		return p.text(ctx, q)
	}
	return ports.Answer{}, fmt.Errorf("question %q has an unknown kind", q.Message)
}

func (p *Prompter) confirm(ctx context.Context, q ports.Question) (ports.Answer, error) {
	v, _ := q.Default.(bool)
	f := huh.NewConfirm().Title(safetext.String(q.Message)).Affirmative("Yes").Negative("No").Value(&v)
	if _, err := p.runForm(ctx, f, false); err != nil {
		return ports.Answer{}, err
	}
	p.summary(q.Message, yesNo(v))
	return ports.Answer{Bool: v}, nil
}

func (p *Prompter) selectOne(ctx context.Context, q ports.Question) (ports.Answer, error) {
	opts := make([]huh.Option[string], len(q.Options))
	labels := make(map[string]string, len(q.Options))
	for i, o := range q.Options {
		label := o.Label
		if label == "" {
			label = o.Answer()
		}
		labels[o.Answer()] = label
		opts[i] = huh.NewOption(oneLine(label), o.Answer())
	}
	v, _ := q.Default.(string) // pre-selected when it is an option's answer
	f := huh.NewSelect[string]().Title(safetext.String(q.Message)).Options(opts...).Value(&v)
	if _, err := p.runForm(ctx, f, false); err != nil {
		return ports.Answer{}, err
	}
	p.summary(q.Message, labels[v])
	return ports.Answer{Text: v}, nil
}

func (p *Prompter) text(ctx context.Context, q ports.Question) (ports.Answer, error) {
	v, _ := q.Default.(string)
	f := huh.NewInput().Title(safetext.String(q.Message)).CharLimit(0).Value(&v)
	secret := q.Kind == ports.QuestionSecret
	if secret {
		// No echo: nothing appears while typing, not even a mask whose
		// length would give the secret's away.
		v = ""
		f.EchoMode(huh.EchoModeNone).Description("(typing is hidden)")
	}
	if _, err := p.runForm(ctx, f, false); err != nil {
		return ports.Answer{}, err
	}
	if secret {
		p.summary(q.Message, "(hidden)")
	} else {
		p.summary(q.Message, v)
	}
	return ports.Answer{Text: v}, nil
}

// Compose returns composed text: inline (Enter submits, Alt+Enter or
// Ctrl+J inserts a newline, Ctrl+X continues in the external editor when
// one is configured, ESC cancels, Ctrl-C interrupts) or, with
// req.InEditor, in the external editor. When the editor fails or exits
// non-zero after Ctrl+X, the inline composer comes back with the text.
//
// An emptied buffer is returned as "" with no error. When the external
// editor was used and req.Document is set, the result is the whole
// document as saved; callers take the query text with
// draft.Parse(result).Query(), which is the text itself for inline input.
func (p *Prompter) Compose(ctx context.Context, req ports.ComposeRequest) (string, error) {
	if !p.Interactive() {
		return "", errNoTerminal
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	note := "esc: cancel"
	if req.InEditor {
		content := req.Document
		if content == "" {
			content = req.Initial
		}
		out, err := p.runEditor(ctx, req.Editor, req.Purpose, content)
		if err == nil || !req.FallbackInline || ctx.Err() != nil {
			return out, err
		}
		// compose_in_editor = true: fall back to the inline composer.
		note = oneLine(err.Error())
	}
	if req.Session {
		return p.composeSession(ctx, req)
	}
	v := req.Initial
	for {
		f := huh.NewText().
			Title(composeTitle(req.Purpose)).
			Description(note).
			CharLimit(0).
			Lines(6).
			Value(&v)
		toEditor, err := p.runForm(ctx, f, (p.opts.Editor != "" || req.Editor != "") && !req.NoEditor)
		if err != nil {
			// ESC or Ctrl-C: what was typed comes back with the error, so
			// the caller can keep it.
			return v, err
		}
		if !toEditor {
			return v, nil
		}
		content := v
		if req.Document != "" {
			content = draft.Parse(req.Document).WithQuery(v).Render()
		}
		out, err := p.runEditor(ctx, req.Editor, req.Purpose, content)
		if err == nil || ctx.Err() != nil {
			return out, err
		}
		// Keep what was typed: back to the inline composer, saying why.
		note = oneLine(err.Error())
	}
}

// composeTitle names what is being composed.
func composeTitle(purpose string) string {
	switch purpose {
	case "reply", "respond":
		return "Reply"
	case "queue_reply":
		return "Queue a reply (sent when this turn ends)"
	case "edit_draft":
		return "Edit the queued reply"
	}
	return "Message"
}

// summary leaves the question and its answer on screen after the prompt
// is gone.
func (p *Prompter) summary(question, answer string) {
	fmt.Fprintf(p.opts.Out, "%s%s%s %s\n", sgrDim, oneLine(question), sgrReset, oneLine(answer))
}

// translate maps a form's library error to the port's sentinels.
func translate(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, huh.ErrUserAborted):
		return fmt.Errorf("prompt: %w", ports.ErrInterrupted)
	}
	return fmt.Errorf("prompt failed (%v): %w", err, ports.ErrUnavailable)
}

// hasKeys reports whether every option has a one-character key, so the
// inline key menu can ask the question.
func hasKeys(opts []ports.Option) bool {
	for _, o := range opts {
		if utf8.RuneCountInString(o.Key) != 1 {
			return false
		}
	}
	return true
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// oneLine flattens text for a one-line summary, with control characters
// shown as the output sanitiser shows them (tabs become spaces).
func oneLine(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ ")
	return safetext.String(strings.ReplaceAll(s, "\t", " "))
}
