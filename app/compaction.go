package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jpcli/jp/domain/compact"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/domain/workspace"
)

// Non-destructive compaction (docs/conversations.md, "Compaction"): an
// overlay event appended to the conversation changes how a range of its
// turns is sent to a model; the events themselves are never changed or
// removed, and a reset is itself an event.

// SummaryInstructions is the summarizer's system prompt when a rule sets
// none.
const SummaryInstructions = `Summarize the preceding conversation for continuity. The summary will replace the original messages, so it must be self-contained.

Preserve:
- Decisions made and their rationale
- Open questions and unresolved problems
- File paths, identifiers (functions, types, variables, commands, URLs) and code structures discussed, written exactly
- Errors encountered and how they were resolved
- Current task state and next steps
- Constraints or requirements established

Be concise but thorough. The reader should be able to continue the conversation without having seen the original messages.`

// CompactSpec is one compaction: the rules to apply (none: those of
// conversation.compaction.rules), the command line's range (overriding
// each rule's keep_first/keep_last), the summarizer model overriding
// every rule's (Model), and whether to only say what would change
// (DryRun) or to undo the overlays (Reset).
type CompactSpec struct {
	Rules []compact.Rule
	From  compact.Bound
	To    compact.Bound
	// WithConfigRules puts the configured rules before Rules (a bare
	// --compact next to --compact=SPEC).
	WithConfigRules bool
	// KeepFirst and KeepLast, when set, replace every rule's own.
	KeepFirst *compact.Bound
	KeepLast  *compact.Bound
	Model     string
	DryRun    bool
	Reset     bool
}

// CompactResult is what a compaction did (or, with DryRun, would do).
type CompactResult struct {
	// Existing are the overlays in effect before; Added those appended
	// (with DryRun: planned, summaries not written).
	Existing []conversation.Compaction
	Added    []conversation.Compaction
	// Events are the events appended (none with DryRun): a run that
	// compacts between turns adds them to its transcript.
	Events []conversation.Event
	// Turns counts the conversation's turns.
	Turns int
	// TokensBefore and TokensAfter estimate the next request's messages
	// before and after (turn.EstimateTokens).
	TokensBefore, TokensAfter int
	// Undone counts the overlays a Reset undid.
	Undone int
}

// CompactInput is jp conversation compact.
type CompactInput struct {
	Loc          workspace.Location
	Conversation conversation.ID
	Spec         CompactSpec
	ConfigSources
}

// Compact compacts a conversation under its lock (see CompactSpec).
func (q *Query) Compact(ctx context.Context, in CompactInput) (CompactResult, error) {
	res, err := q.conversationConfig(ctx, in.Loc, in.Conversation, in.ConfigSources)
	if err != nil {
		return CompactResult{}, err
	}
	release, err := q.lock(ctx, in.Loc, in.Conversation)
	if err != nil {
		return CompactResult{}, err
	}
	defer func() { _ = release() }()
	return q.CompactLocked(ctx, res.Config, in.Loc, in.Conversation, nil, in.Spec)
}

// CompactLocked is Compact for a caller that holds the conversation's
// lock (a run compacting between turns). h is the conversation's
// transcript, nil to read it; the events appended are added to it.
func (q *Query) CompactLocked(ctx context.Context, cfg config.Config, loc workspace.Location, id conversation.ID, h *turn.Transcript, spec CompactSpec) (CompactResult, error) {
	if h == nil {
		var err error
		if h, err = q.history(ctx, loc, id); err != nil {
			return CompactResult{}, userNotFound(err)
		}
	}
	view := h.CompactionView()
	out := CompactResult{Existing: view.Overlays, Turns: view.Turns(), TokensBefore: turn.EstimateTokens(h.Messages())}
	now := q.clock.Now().UTC()
	if spec.Reset {
		out.Undone = len(view.Overlays)
		out.TokensAfter = turn.EstimateTokens(h.RawMessages())
		if out.Undone == 0 || spec.DryRun {
			return out, nil
		}
		ev := conversation.NewCompactionResetEvent(q.ids.NewID(), now)
		if err := q.store.Append(ctx, loc, id, ev); err != nil {
			return CompactResult{}, err
		}
		h.Add(ev)
		out.Events = []conversation.Event{ev}
		return out, nil
	}
	rules := spec.Rules
	if len(rules) == 0 || spec.WithConfigRules {
		configured, err := compact.FromConfig(cfg.Conversation.Compaction.Rules)
		if err != nil {
			return CompactResult{}, &UserError{Msg: err.Error() + ": fix it in the configuration, or give the policy as flags (see jp conversation compact --help)", Err: err}
		}
		rules = append(configured, rules...)
	}
	plans := compact.Plan(view, compact.Spec{Rules: rules, From: spec.From, To: spec.To, KeepFirst: spec.KeepFirst, KeepLast: spec.KeepLast}, now)
	for _, p := range plans {
		out.Added = append(out.Added, p.Overlay)
	}
	if len(plans) == 0 {
		out.TokensAfter = out.TokensBefore
		return out, nil
	}
	if spec.DryRun {
		out.TokensAfter = turn.EstimateTokens(h.MessagesWith(out.Added))
		return out, nil
	}
	// Every summary is written before anything is appended: a failed one
	// leaves the conversation as it was.
	for i, p := range plans {
		if p.Rule.Summary == nil {
			continue
		}
		text, err := q.summarize(ctx, cfg, h, spec.Model, *p.Rule.Summary, p.Range)
		if err != nil {
			return CompactResult{}, &UserError{Msg: "no summary written, the conversation is unchanged: " + oneLine(err.Error()), Err: err}
		}
		out.Added[i].Summary = &text
	}
	for _, c := range out.Added {
		out.Events = append(out.Events, conversation.NewCompactionEvent(q.ids.NewID(), now, c))
	}
	if err := q.store.Append(ctx, loc, id, out.Events...); err != nil {
		return CompactResult{}, err
	}
	for _, e := range out.Events {
		h.Add(e)
	}
	out.TokensAfter = turn.EstimateTokens(h.Messages())
	return out, nil
}

// oneLine joins the lines of s.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// summaryModel is the model that writes a summary: -m, the rule's
// summary.model, else the conversation's model.
func (q *Query) summaryModel(cfg config.Config, h *turn.Transcript, flag, rule string) (llm.ModelID, error) {
	if raw := strings.TrimSpace(cmpOr(flag, rule)); raw != "" {
		resolved, err := cfg.ResolveModel(raw)
		if err != nil {
			return llm.ModelID{}, err
		}
		return llm.ParseModelID(resolved)
	}
	m, _, err := q.chooseModel(h.LastModel(), cfg)
	return m, err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// summarize asks the summary model for a summary of the turns of r, read
// without overlays (the Rust jp's summarizer reads the raw events too).
func (q *Query) summarize(ctx context.Context, cfg config.Config, h *turn.Transcript, flag string, s compact.Summary, r compact.Range) (string, error) {
	model, err := q.summaryModel(cfg, h, flag, s.Model)
	if err != nil {
		return "", err
	}
	p, err := q.providers.Provider(ctx, cfg, model)
	if err != nil {
		return "", fmt.Errorf("%s: %w", model, err)
	}
	msgs := summaryInput(h.TurnMessages(r.From, r.To), s.Context)
	system := s.Instructions
	if system == "" {
		system = SummaryInstructions
	}
	var b strings.Builder
	err = p.Stream(ctx, llm.Request{Model: model.Model, System: system, Summary: true, Messages: msgs},
		func(e llm.Event) error {
			if e.Kind == llm.EventTextDelta {
				b.WriteString(e.Text)
			}
			return nil
		})
	if err != nil {
		return "", fmt.Errorf("%s: %w", model, err)
	}
	text := strings.TrimSpace(b.String())
	if text == "" {
		return "", errors.New(model.String() + " answered no summary")
	}
	return text, nil
}

// summaryInput is the summarizer's conversation: the turns' messages
// without their reasoning, then the request for the summary.
func summaryInput(turnMsgs []llm.Message, context string) []llm.Message {
	msgs := make([]llm.Message, 0, len(turnMsgs)+1)
	for _, m := range turnMsgs {
		m.Reasoning, m.Thinking = "", nil
		if m.Role == llm.RoleAssistant && m.Text == "" && len(m.ToolCalls) == 0 {
			continue
		}
		msgs = append(msgs, m)
	}
	ask := "Summarize the conversation above."
	if c := strings.TrimSpace(context); c != "" {
		ask += "\n\nAdditional context: " + c
	}
	return append(msgs, llm.Message{Role: llm.RoleUser, Text: ask})
}

// Projected returns the messages a model is sent of the conversation
// (its compaction overlays applied) and an estimate of their tokens (jp
// conversation print --compacted). The events are read as they stream
// from the store.
func (c *Conversations) Projected(ctx context.Context, loc workspace.Location, id conversation.ID) ([]llm.Message, int, error) {
	if _, err := c.Get(ctx, loc, id); err != nil {
		return nil, 0, err
	}
	t := turn.NewTranscript(0)
	err := c.store.ScanEvents(ctx, loc, id, func(e conversation.Event) error {
		t.AddCopy(e)
		return nil
	})
	if err != nil {
		return nil, 0, userNotFound(err)
	}
	msgs := t.Messages()
	return msgs, turn.EstimateTokens(msgs), nil
}

// compactBeforeTurn is jp query --compact: the conversation is compacted
// under the run's lock before its turn starts, and one chrome line says
// what changed.
func (q *Query) compactBeforeTurn(ctx context.Context, rs *runState) error {
	if rs.compact == nil {
		return nil
	}
	res, err := q.CompactLocked(ctx, rs.cfg, rs.loc, rs.id, rs.history, *rs.compact)
	if err != nil {
		return err
	}
	if len(res.Added) == 0 {
		return nil
	}
	var parts []string
	for _, c := range res.Added {
		parts = append(parts, fmt.Sprintf("turns %d..%d (%s)", c.FromTurn+1, c.ToTurn+1, compact.Label(c)))
	}
	q.chromeLine(rs, fmt.Sprintf("Compacted %s: the request is about %s tokens (was %s; estimated).",
		strings.Join(parts, ", "), KTokens(res.TokensAfter), KTokens(res.TokensBefore)))
	return nil
}

// KTokens writes a token count as 950, 1.2k or 41k.
func KTokens(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 10_000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	}
	return strconv.Itoa((n+500)/1000) + "k"
}
