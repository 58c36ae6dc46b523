package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// QueryFlags are the jp query flags of the Rust jp that act on the
// conversation around the turn rather than on the turn itself.
type QueryFlags struct {
	// Title (--title) sets the conversation's title; NoTitle (--no-title)
	// clears it. Either way no title is generated in this run.
	Title   string
	NoTitle bool
	// Labels (--label) are added to the conversation.
	Labels []string
	// Fork (--fork) asks in a copy of the conversation (-i, or the active
	// one); ForkLast > 0 (--fork=N) keeps only its last N complete turns.
	Fork     bool
	ForkLast int
	// HideToolCalls (--hide-tool-calls) shows no tool call or result
	// (they still run and are recorded).
	HideToolCalls bool
	// ToolArguments (jp -v) shows each tool call with its arguments.
	ToolArguments bool
	// Quote (--quote) seeds the message with the conversation's last
	// answer, as a "> " blockquote, or verbatim with QuoteVerbatim
	// (--quote=false), and composes unless -E.
	Quote, QuoteVerbatim bool
	// Template (-%, --template) renders the message with template.values.
	Template bool
	// Replay (--replay) drops the conversation's last turn and sends its
	// message again (replay.go).
	Replay bool
}

// check refuses, in one line, flags that exclude each other and titles
// or labels that are not valid, before anything is created.
func (f QueryFlags) check(in QueryInput) error {
	switch {
	case f.Title != "" && f.NoTitle:
		return &UsageError{Msg: "--title and --no-title exclude each other"}
	case f.Fork && (in.New || in.Local):
		return &UsageError{Msg: "--fork asks in a copy of an existing conversation: drop --new/--local"}
	case f.Fork && (in.Tmp || in.NoPersist):
		return &UsageError{Msg: fmt.Sprintf("--fork and %s exclude each other", ephemeralFlag(in))}
	case f.Replay && (in.New || in.Local || in.Tmp):
		return &UsageError{Msg: "--replay sends the last message of an existing conversation again: drop --new/--local/--tmp"}
	case f.ForkLast < 0:
		return &UsageError{Msg: "--fork=N: N is a number of turns, 1 or more"}
	}
	if f.Title != "" {
		if _, err := conversation.CheckTitle(f.Title, false); err != nil {
			return &UsageError{Msg: "--title: " + err.Error()}
		}
	}
	for _, l := range f.Labels {
		if strings.HasPrefix(l, ":") {
			return &UsageError{Msg: fmt.Sprintf("--label %s: label rules (conversation.labels) are not supported by this jp yet; give the label itself", l)}
		}
		if _, err := conversation.ParseLabelSet(l); err != nil {
			return &UsageError{Msg: "--label: " + err.Error()}
		}
	}
	return nil
}

// forkFor copies the conversation id for --fork (all its complete turns,
// or the last f.ForkLast of them) and returns the copy, which the run
// then continues. Its title, labels and storage are the original's.
func (q *Query) forkFor(ctx context.Context, loc workspace.Location, id conversation.ID, f QueryFlags) (conversation.ID, error) {
	if id == "" {
		return "", &UsageError{Msg: "--fork: no conversation to fork: pick one with -i ID (or start one with jp q)"}
	}
	nid, err := forkWith(ctx, q.store, loc, id, ForkOptions{Last: f.ForkLast})
	if err != nil {
		return "", userNotFound(err)
	}
	return nid, nil
}

// applyMeta sets --title, --no-title and --label on the run's
// conversation (locked by the run), whether new, forked or continued.
func (q *Query) applyMeta(ctx context.Context, rs *runState, f QueryFlags) error {
	if f.Title == "" && !f.NoTitle && len(f.Labels) == 0 {
		return nil
	}
	if f.Title != "" || f.NoTitle {
		rs.noTitle = true // the user's title (or none) wins over a generated one
	}
	return q.store.UpdateMetadata(ctx, rs.loc, rs.id, func(m *conversation.Metadata) error {
		switch {
		case f.Title != "":
			m.Title, _ = conversation.CheckTitle(f.Title, false)
		case f.NoTitle:
			m.Title = ""
		}
		if len(f.Labels) > 0 {
			lm := m.LabelMap()
			if lm == nil {
				lm = map[string]string{}
			}
			var ds []conversation.LabelDirective
			for _, l := range f.Labels {
				d, _ := conversation.ParseLabelSet(l) // checked by check
				ds = append(ds, d)
			}
			conversation.ApplyLabels(lm, ds)
			m.SetLabelMap(lm)
		}
		return nil
	})
}

// quoteSeed puts the conversation's last answer before the message for
// --quote, as a "> " blockquote (verbatim with --quote=false), and asks
// to compose unless -E; without an earlier answer it says so in one line.
func (q *Query) quoteSeed(rs *runState, in QueryInput) QueryInput {
	if !in.Flags.Quote {
		return in
	}
	last := ""
	if rs.history != nil {
		last = rs.history.FinalText()
	}
	if strings.TrimSpace(last) == "" {
		q.chromeLine(rs, "--quote: this conversation has no earlier answer to quote.")
		return in
	}
	quoted := strings.TrimRight(last, "\n")
	if !in.Flags.QuoteVerbatim {
		quoted = Blockquote(quoted)
	}
	if in.HasMessage && in.Message != "" {
		quoted += "\n\n" + in.Message
	}
	in.Message, in.HasMessage = quoted, true
	if !in.NoEdit && q.prompter.Interactive() {
		// Opened in the editor where there is one; without a terminal
		// the quote is sent as it is (an explicit -e there fails).
		in.Edit = true
	}
	return in
}

// Blockquote prefixes each line of text with "> " (an empty line with
// ">" alone), as the Rust jp's --quote does.
func Blockquote(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}

// renderTemplate renders the message for -% with template.values.
func renderTemplate(text string, cfg config.Config) (string, error) {
	out, err := config.RenderTemplate(text, cfg.Template.Values)
	if err != nil {
		return "", &UsageError{Msg: "-%: " + err.Error()}
	}
	return out, nil
}

// applyStyle applies the [style] keys this jp has an output for, and the
// --hide-* flags, to the run: reasoning and tool calls hidden, and the
// printer's colours.
func (q *Query) applyStyle(rs *runState, in QueryInput) {
	st := rs.cfg.Style
	rs.hideReasoning = in.HideReasoning || st.Reasoning.Display.Hidden()
	rs.hideToolCalls = in.Flags.HideToolCalls || !st.ToolCall.Show.Or(true)
	rs.toolArgs = in.Flags.ToolArguments || st.ToolCall.Arguments.Or(false)
	if s, ok := q.printer.(ports.Styler); ok && (st.Markdown.LightTheme() || !st.Code.Color.Or(true)) {
		s.SetStyle(ports.OutputStyle{Light: st.Markdown.LightTheme(), NoCodeColor: !st.Code.Color.Or(true)})
	}
}

// reasoningSpinner reports whether ev is reasoning that a wait indicator
// stands for (style.reasoning.display static, progress, timer or
// summary): the first such event swaps the model's indicator for one
// naming the reasoning, which the answer's first event stops.
func (s *turnStream) reasoningSpinner(ev llm.Event) bool {
	if ev.Kind != llm.EventReasoningDelta && (ev.Kind != llm.EventReasoningSignature || !s.reasoningWait) {
		return false
	}
	if !s.rs.cfg.Style.Reasoning.Display.Spinner() {
		return false
	}
	if !s.reasoningWait {
		s.stopWait()
		s.stopWait = s.q.printer.Wait("reasoning")
		s.reasoningWait = true
	}
	return true
}

// truncateReasoning is the part of a reasoning delta shown under
// style.reasoning.display = N: the block's first N characters, then "…".
func (s *turnStream) truncateReasoning(text string) string {
	d, ts := s.rs.cfg.Style.Reasoning.Display, s.ts
	if d.Mode != "truncate" {
		return text
	}
	if ts.reasoningShown < 0 {
		return ""
	}
	left := d.Chars - ts.reasoningShown
	r := []rune(text)
	if len(r) <= left {
		ts.reasoningShown += len(r)
		return text
	}
	ts.reasoningShown = -1
	return string(r[:left]) + "…"
}
