package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/compact"
)

// ConversationCompactCmd is jp conversation compact, the Rust jp's:
// appends compaction overlays; nothing is removed.
type ConversationCompactCmd struct {
	ID        string  `arg:"" optional:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one (default: the active conversation)."`
	KeepFirst string  `name:"keep-first" placeholder:"N|DURATION" help:"Leave the first N turns (or those of the first DURATION, e.g. 2h) alone."`
	KeepLast  string  `name:"keep-last" placeholder:"N|DURATION" help:"Leave the last N turns (or those of the last DURATION, e.g. 1d) alone."`
	From      string  `placeholder:"N" help:"Compact from turn N (1-based), -N (from the end), a DURATION ago, or last-compaction (after the latest compaction)."`
	To        string  `placeholder:"N" help:"Compact up to turn N (1-based, included), -N (from the end) or a DURATION ago."`
	First     int     `placeholder:"N" help:"Compact the first N turns."`
	Last      int     `placeholder:"N" help:"Compact the last N turns."`
	Turn      string  `placeholder:"A..B" help:"Compact turn N, or the turns A..B (1-based, included; A.. and ..B are open)."`
	Reasoning bool    `short:"r" help:"Strip reasoning from the compacted turns."`
	ToolCalls optText `name:"tool-calls" aliases:"tools" short:"t" placeholder:"MODE" help:"Strip tool calls of the compacted turns: strip (the default without a value: arguments emptied, results replaced by a status line), strip-requests, strip-responses, or omit (removed); --tools is the Rust jp's name."`
	Summarize optText `short:"s" placeholder:"CONTEXT" help:"Replace the compacted turns by a summary a model writes; an optional CONTEXT guides it."`
	Model     string  `short:"m" placeholder:"MODEL" help:"The model that writes summaries (default: the rule's summary.model, else the conversation's model)."`
	DryRun    bool    `name:"dry-run" help:"Say what would change, with the estimated tokens before and after; change nothing."`
	Reset     bool    `help:"Undo every compaction: the model sees the whole conversation again (itself an event; nothing is deleted)."`
}

// Run compacts the conversation.
func (c *ConversationCompactCmd) Run(rt *Runtime) error {
	spec, err := c.spec()
	if err != nil {
		return err
	}
	a, loc, id, err := rt.conversation(c.ID)
	if err != nil {
		return err
	}
	res, err := a.Query.Compact(rt.Ctx, app.CompactInput{
		Loc: loc, Conversation: id, Spec: spec, ConfigSources: rt.configSources(),
	})
	if err != nil {
		return err
	}
	printCompaction(rt.Streams.Out, res, spec)
	return nil
}

// spec reads the flags; a policy flag makes one rule of its own (the
// configured rules apply otherwise), range flags override every rule's.
func (c *ConversationCompactCmd) spec() (app.CompactSpec, error) {
	spec := app.CompactSpec{Model: c.Model, DryRun: c.DryRun, Reset: c.Reset}
	policy := c.Reasoning || c.ToolCalls.Set || c.Summarize.Set
	ranged := c.KeepFirst != "" || c.KeepLast != "" || c.From != "" || c.To != "" || c.First != 0 || c.Last != 0 || c.Turn != ""
	if c.Reset {
		if policy || ranged || c.Model != "" {
			return app.CompactSpec{}, &app.UsageError{Msg: "--reset undoes every compaction: give it without policy, range or --model flags"}
		}
		return spec, nil
	}
	if err := c.checkSelectors(); err != nil {
		return app.CompactSpec{}, err
	}
	if policy {
		r, err := c.policyRule()
		if err != nil {
			return app.CompactSpec{}, err
		}
		spec.Rules = []compact.Rule{r}
	}
	if err := c.rangeBounds(&spec); err != nil {
		return spec, err
	}
	return spec, c.keepBounds(&spec)
}

// checkSelectors refuses flags that select turns twice over.
func (c *ConversationCompactCmd) checkSelectors() error {
	selectors := 0
	for _, on := range []bool{c.First != 0, c.Last != 0, c.Turn != "", c.From != "" || c.To != ""} {
		if on {
			selectors++
		}
	}
	switch {
	case selectors > 1:
		return &app.UsageError{Msg: "--first, --last, --turn and --from/--to each select turns: give one of them"}
	case c.First < 0 || c.Last < 0:
		return &app.UsageError{Msg: "--first and --last take a number of turns above 0"}
	case c.KeepFirst != "" && (c.From != "" || c.Last != 0 || c.Turn != "") || c.KeepLast != "" && (c.To != "" || c.First != 0 || c.Turn != ""):
		return &app.UsageError{Msg: "--keep-first goes with --first or --to, --keep-last with --last or --from: not with --turn, nor with the bound it sets itself"}
	}
	return nil
}

// policyRule is the one rule the policy flags make.
func (c *ConversationCompactCmd) policyRule() (compact.Rule, error) {
	r := compact.DefaultRule()
	r.Reasoning, r.Tools = c.Reasoning, nil
	if c.ToolCalls.Set {
		var err error
		if r.Tools, err = compact.ToolsMode(c.ToolCalls.Value); err != nil {
			return r, &app.UsageError{Msg: fmt.Sprintf("--tool-calls: %v", err)}
		}
	}
	if c.Summarize.Set {
		r.Summary = &compact.Summary{Context: c.Summarize.Value}
	}
	return r, nil
}

// rangeBounds sets the range of turns --from/--to, --first, --last or
// --turn select.
func (c *ConversationCompactCmd) rangeBounds(spec *app.CompactSpec) error {
	bound := func(flag, s string, from bool) (compact.Bound, error) {
		b, err := compact.ParseRangeBound(s, from)
		if err != nil {
			return b, &app.UsageError{Msg: flag + ": " + err.Error()}
		}
		return b, nil
	}
	var err error
	if c.From != "" {
		if spec.From, err = bound("--from", c.From, true); err != nil {
			return err
		}
	}
	if c.To != "" {
		if spec.To, err = bound("--to", c.To, false); err != nil {
			return err
		}
	}
	switch {
	case c.First > 0:
		// With --keep-first, that supplies the start.
		spec.To = compact.Bound{Kind: compact.BoundAbsolute, N: c.First - 1}
		if c.KeepFirst == "" {
			spec.From = compact.Bound{Kind: compact.BoundAbsolute}
		}
	case c.Last > 0:
		// With --keep-last, that supplies the end.
		spec.From = compact.Bound{Kind: compact.BoundFromEnd, N: c.Last - 1}
		if c.KeepLast == "" {
			spec.To = compact.Bound{Kind: compact.BoundFromEnd}
		}
	case c.Turn != "":
		return c.turnBounds(spec)
	}
	return nil
}

// turnBounds is --turn N, A..B, A.. or ..B (turns counted from 1).
func (c *ConversationCompactCmd) turnBounds(spec *app.CompactSpec) error {
	a, b, isRange := strings.Cut(c.Turn, "..")
	if !isRange {
		b = a
	}
	num := func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return 0, &app.UsageError{Msg: fmt.Sprintf("--turn %s: turn numbers count from 1 (e.g. 3, 2..5, 4.., ..6)", c.Turn)}
		}
		return n, nil
	}
	spec.From, spec.To = compact.Bound{Kind: compact.BoundAbsolute}, compact.Bound{Kind: compact.BoundFromEnd}
	if a != "" {
		n, err := num(a)
		if err != nil {
			return err
		}
		spec.From = compact.Bound{Kind: compact.BoundAbsolute, N: n - 1}
	}
	if b != "" {
		n, err := num(b)
		if err != nil {
			return err
		}
		spec.To = compact.Bound{Kind: compact.BoundAbsolute, N: n - 1}
	}
	return nil
}

// keepBounds sets --keep-first/--keep-last, which replace every rule's
// own: they bound the range where the flags above leave it open.
func (c *ConversationCompactCmd) keepBounds(spec *app.CompactSpec) error {
	keep := func(flag, s string) (*compact.Bound, error) {
		b, err := compact.ParseKeep(s)
		if err != nil {
			return nil, &app.UsageError{Msg: flag + ": " + err.Error()}
		}
		return &b, nil
	}
	var err error
	if c.KeepFirst != "" {
		if spec.KeepFirst, err = keep("--keep-first", c.KeepFirst); err != nil {
			return err
		}
	}
	if c.KeepLast != "" {
		if spec.KeepLast, err = keep("--keep-last", c.KeepLast); err != nil {
			return err
		}
	}
	return nil
}

// printCompaction says what was compacted (or would be) and kept, turn
// numbers from 1, then the estimated size of the next request.
func printCompaction(w io.Writer, res app.CompactResult, spec app.CompactSpec) {
	if spec.Reset {
		switch {
		case res.Undone == 0:
			fmt.Fprintln(w, "No compaction to undo.")
		case spec.DryRun:
			fmt.Fprintf(w, "Would undo %d compaction(s).\n", res.Undone)
		default:
			fmt.Fprintf(w, "Undid %d compaction(s): the model sees every turn again.\n", res.Undone)
		}
		fmt.Fprintln(w, tokensLine(res, spec.DryRun))
		return
	}
	if len(res.Added) == 0 {
		fmt.Fprintln(w, "Nothing to compact.")
		return
	}
	for _, l := range timeline(res, spec.DryRun) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, tokensLine(res, spec.DryRun))
}

func tokensLine(res app.CompactResult, dry bool) string {
	verb := "is"
	if dry {
		verb = "would be"
	}
	return fmt.Sprintf("The next request %s about %s tokens (was %s; estimated).", verb, app.KTokens(res.TokensAfter), app.KTokens(res.TokensBefore))
}

// timeline is the Rust jp's account of a compaction: the ranges
// compacted (those before this one too) and the turns kept between them.
func timeline(res app.CompactResult, dry bool) []string {
	type seg struct {
		from, to int
		label    string
		existing bool
	}
	var segs []seg
	for _, c := range res.Existing {
		segs = append(segs, seg{c.FromTurn, min(c.ToTurn, res.Turns-1), compact.Label(c), true})
	}
	for _, c := range res.Added {
		segs = append(segs, seg{c.FromTurn, c.ToTurn, compact.Label(c), false})
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].from < segs[j].from })
	kept := "Kept"
	if dry {
		kept = "Would have kept"
	}
	keptLine := func(from, to int) string {
		if from == to {
			return fmt.Sprintf("%s turn %d.", kept, from+1)
		}
		return fmt.Sprintf("%s turns %d..%d.", kept, from+1, to+1)
	}
	var lines []string
	covered := -1
	for _, s := range segs {
		if s.from > covered+1 {
			lines = append(lines, keptLine(covered+1, s.from-1))
		}
		verb := "Compacted"
		if dry && !s.existing {
			verb = "Would have compacted"
		}
		label := fmt.Sprintf("%d total", s.to-s.from+1)
		if s.label != "" {
			label += ", " + s.label
		}
		lines = append(lines, fmt.Sprintf("%s turns %d..%d (%s).", verb, s.from+1, s.to+1, label))
		covered = max(covered, s.to)
	}
	if covered+1 <= res.Turns-1 {
		lines = append(lines, keptLine(covered+1, res.Turns-1))
	}
	return lines
}

// compactFlag reads --compact/-k values (jp query, jp conversation fork):
// bare, the configured rules; SPEC, an inline rule (compact.ParseRule);
// both, the configured rules then the inline ones. None is nil.
func compactFlag(values []string) (*app.CompactSpec, error) {
	if len(values) == 0 {
		return nil, nil
	}
	spec := &app.CompactSpec{}
	for _, v := range values {
		if v == "" {
			spec.WithConfigRules = true
			continue
		}
		r, err := compact.ParseRule(v)
		if err != nil {
			return nil, &app.UsageError{Msg: fmt.Sprintf("--compact=%s: %v (a rule is POLICIES[:RANGE], e.g. r+t or s:..-3)", v, err)}
		}
		spec.Rules = append(spec.Rules, r)
	}
	return spec, nil
}
