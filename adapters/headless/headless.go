// Package headless is jp's scripted front end for CI: a ports.Prompter
// that answers questions and compose requests from a script file, in
// order, and never blocks. The CLI selects it with --headless FILE or
// JP_HEADLESS=FILE.
//
// The script format is documented in docs/headless.md. In short, one step
// a line:
//
//	# answer the tool permission prompt for bash: run, remember for this run
//	permission bash Y
//	confirm @plugin:prune yes
//	select develop
//	text hello world
//	secret "s3cr3t"
//	compose @queue_reply <<END
//	Now run the tests.
//	END
//	# ESC, Ctrl-C, and "no terminal" on the next three questions
//	cancel
//	interrupt
//	unavailable
//
// A question the script does not expect, or one asked after the last step,
// fails with a *StepError that wraps ports.ErrUnavailable and names the
// script, the step, what the step expected and what jp asked. Secret
// answers never appear in errors.
package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// Script is a loaded headless script. Its Prompter consumes the steps in
// order; Done reports the steps left over. A Script is safe for concurrent
// use: concurrent questions take steps in the order they arrive.
type Script struct {
	name  string
	steps []step

	mu   sync.Mutex
	next int // index of the next step to use
	// failed holds the questions the script could not answer, so that
	// Done reports them even when the caller went on after the error.
	failed []error
	// show receives what a question shows before it is answered (a write
	// tool's diff); nil shows nothing.
	show io.Writer
}

// ShowTo makes the script print what each question shows before it is
// answered (a write tool's unified diff) to w, control characters
// neutralised, so that a CI log holds the change it approved.
func (s *Script) ShowTo(w io.Writer) { s.show = w }

// Load reads and parses the script at path. A parse error names the file
// and the line.
func Load(path string) (*Script, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read headless script: %w", err)
	}
	return Parse(path, string(b))
}

// Parse parses script text; name (usually the file path) is used in error
// messages.
func Parse(name, text string) (*Script, error) {
	steps, err := parseScript(name, text)
	if err != nil {
		return nil, err
	}
	return &Script{name: name, steps: steps}, nil
}

// Prompter returns the ports.Prompter that answers from this script.
func (s *Script) Prompter() ports.Prompter { return (*prompter)(s) }

// Remaining returns the number of steps not used yet.
func (s *Script) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

// Done reports, when the run ends, what went wrong with the script: the
// questions it could not answer (each a *StepError; jp may have carried
// on after one, for example by skipping a tool call) and the steps that
// were never used. It returns nil when every question was answered and
// every step used. The CLI fails the run on a non-nil error.
func (s *Script) Done() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	errs := append([]error(nil), s.failed...)
	if s.next < len(s.steps) {
		errs = append(errs, s.unused())
	}
	return errors.Join(errs...)
}

// unused describes the steps never used. Called with s.mu held.
func (s *Script) unused() error {
	left := s.steps[s.next:]
	parts := make([]string, 0, len(left))
	for i, st := range left {
		parts = append(parts, fmt.Sprintf("step %d (line %d: %s)", s.next+i+1, st.line, st))
	}
	noun := "steps were"
	if len(left) == 1 {
		noun = "step was"
	}
	return fmt.Errorf("headless script %s: %d %s never used: %s", s.name, len(left), noun, strings.Join(parts, ", "))
}

// StepError is a question or compose request the script could not answer.
// It wraps ports.ErrUnavailable.
type StepError struct {
	// Script is the script's name (its path).
	Script string
	// Step is the 1-based number of the step that was due; len(steps)+1
	// when the script was used up.
	Step int
	// Line is the line of that step; 0 when the script was used up.
	Line int
	// Expected describes the step as the script spells it (secret values
	// hidden); "" when the script was used up.
	Expected string
	// Asked describes the question or compose request jp made.
	Asked string
	// Hint is a step that would answer it.
	Hint string
	// Reason says why the step did not fit, when Expected is not enough.
	Reason string
}

// Error says what went wrong and what to add or change in the script.
func (e *StepError) Error() string {
	if e.Expected == "" {
		return fmt.Sprintf("headless script %s has no step left (it has %d) for: %s; add a step such as %q",
			e.Script, e.Step-1, e.Asked, e.Hint)
	}
	reason := e.Reason
	if reason == "" {
		reason = "which does not fit"
	}
	return fmt.Sprintf("headless script %s: step %d (line %d) expected %s, but jp asked %s, %s; a step that fits is %q",
		e.Script, e.Step, e.Line, e.Expected, e.Asked, reason, e.Hint)
}

// Unwrap makes errors.Is(err, ports.ErrUnavailable) true.
func (e *StepError) Unwrap() error { return ports.ErrUnavailable }

// prompter is the ports.Prompter view of a Script.
type prompter Script

var _ ports.Prompter = (*prompter)(nil)

// Interactive is always true: questions are asked, and answered from the
// script; an unexpected question fails clearly instead of being skipped.
// A step "unavailable" simulates a missing terminal for one question.
func (p *prompter) Interactive() bool { return true }

// Ask answers q from the next step.
func (p *prompter) Ask(ctx context.Context, q ports.Question) (ports.Answer, error) {
	if err := ctx.Err(); err != nil {
		return ports.Answer{}, err
	}
	r := request{q: &q, about: q.Topic}
	switch q.Kind {
	case ports.QuestionConfirm:
		r.target = targetConfirm
	case ports.QuestionSelect:
		r.target = targetSelect
	case ports.QuestionText:
		r.target = targetText
	case ports.QuestionSecret:
		r.target = targetSecret
	default:
		return ports.Answer{}, fmt.Errorf("headless script %s: question %q has no kind: %w", p.name, q.Message, ports.ErrUnavailable)
	}
	s := (*Script)(p)
	if q.Diff != "" && s.show != nil {
		fmt.Fprintf(s.show, "%s\n%s", safetext.String(q.Message), safetext.String(q.Diff))
	}
	if q.Optional && !s.fits(r) {
		return ports.Answer{}, fmt.Errorf("headless script %s: no step for the optional %s: skipped: %w", p.name, r.describe(), ports.ErrCancelled)
	}
	st, n, err := s.take(r)
	if err != nil {
		return ports.Answer{}, err
	}
	if err := s.outcome(st, n); err != nil {
		return ports.Answer{}, err
	}
	switch st.kind {
	case stepConfirm:
		return ports.Answer{Bool: st.yes}, nil
	case stepSelect, stepPermission:
		o, _ := st.option(q.Options)
		return ports.Answer{Text: o.Answer()}, nil
	}
	return ports.Answer{Text: st.value}, nil
}

// Compose answers req from the next step. For the external editor
// (req.InEditor) with a Document, the answer is the whole document with
// the step's text as its query text, as an editor would save it.
func (p *prompter) Compose(ctx context.Context, req ports.ComposeRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s := (*Script)(p)
	r := request{c: &req, target: targetCompose, about: req.Purpose}
	st, n, err := s.take(r)
	if err != nil {
		return "", err
	}
	if err := s.outcome(st, n); err != nil {
		return "", err
	}
	text := st.value
	switch st.compose {
	case composeKeep:
		text = req.Initial
		if req.InEditor && req.Document != "" {
			return req.Document, nil
		}
	case composeEmpty:
		text = ""
	}
	if req.InEditor && req.Document != "" {
		return draft.Parse(req.Document).WithQuery(text).Render(), nil
	}
	return text, nil
}

// fits reports whether the next step is there and answers r.
func (s *Script) fits(r request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.steps) || !s.steps[s.next].matches(r) {
		return false
	}
	st := s.steps[s.next]
	if (st.kind == stepSelect || st.kind == stepPermission) && r.q != nil {
		_, ok := st.option(r.q.Options)
		return ok
	}
	return true
}

// take consumes the next step if it fits r. A step that does not fit is
// not consumed, so Done still lists it.
func (s *Script) take(r request) (step, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.steps) {
		return step{}, 0, s.fail(&StepError{Script: s.name, Step: len(s.steps) + 1, Asked: r.describe(), Hint: r.suggestion()})
	}
	st := s.steps[s.next]
	n := s.next + 1
	if !st.matches(r) {
		return step{}, 0, s.fail(s.mismatch(st, n, r, ""))
	}
	if (st.kind == stepSelect || st.kind == stepPermission) && r.q != nil {
		if _, ok := st.option(r.q.Options); !ok {
			return step{}, 0, s.fail(s.mismatch(st, n, r, fmt.Sprintf("which has no option %q", st.value)))
		}
	}
	s.next++
	return st, n, nil
}

// fail records err for Done and returns it. Called with s.mu held.
func (s *Script) fail(err *StepError) error {
	s.failed = append(s.failed, err)
	return err
}

// outcome returns the error of a cancel, interrupt or unavailable step.
func (s *Script) outcome(st step, n int) error {
	switch st.kind {
	case stepCancel:
		return fmt.Errorf("headless script %s: step %d (line %d) cancels (ESC): %w", s.name, n, st.line, ports.ErrCancelled)
	case stepInterrupt:
		return fmt.Errorf("headless script %s: step %d (line %d) interrupts (Ctrl-C): %w", s.name, n, st.line, ports.ErrInterrupted)
	case stepUnavailable:
		return fmt.Errorf("headless script %s: step %d (line %d) answers that no terminal is available: %w", s.name, n, st.line, ports.ErrUnavailable)
	}
	return nil
}

// mismatch builds the error for a step that does not fit r.
func (s *Script) mismatch(st step, n int, r request, reason string) *StepError {
	return &StepError{
		Script:   s.name,
		Step:     n,
		Line:     st.line,
		Expected: st.String(),
		Asked:    r.describe(),
		Hint:     r.suggestion(),
		Reason:   reason,
	}
}
