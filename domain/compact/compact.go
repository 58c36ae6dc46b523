// Package compact holds the rules of non-destructive compaction: which
// turns a rule compacts and the overlay it appends (the Rust jp's
// jp conversation compact and conversation.compaction.rules), and the
// estimate of a request's size in tokens. It does no I/O: the turns are
// described by a View the transcript gives.
package compact

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

// BoundKind is the form of a range bound.
type BoundKind int

// Bound forms. Indices are 0-based.
const (
	BoundDefault   BoundKind = iota // not given: the rule's own, or the whole conversation
	BoundTurns                      // keep-first/keep-last: a count of turns
	BoundAbsolute                   // a turn index
	BoundFromEnd                    // N turns before the last (0: the last)
	BoundAgo                        // a duration: relative to now (or to the start for keep-first)
	BoundAfterLast                  // the turn after the latest compaction ("last-compaction")
)

// Bound is one end of a compacted range, or a keep-first/keep-last value.
type Bound struct {
	Kind BoundKind
	N    int
	D    time.Duration
}

// ParseKeep reads a keep-first/keep-last value as the Rust jp does: a
// turn count ("2"), "@N" (the 1-based turn N), "-N" (N from the end), a
// duration ("5h", "30m", "2d") or "last-compaction".
func ParseKeep(s string) (Bound, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.EqualFold(s, "last-compaction") || strings.EqualFold(s, "last"):
		return Bound{Kind: BoundAfterLast}, nil
	case strings.HasPrefix(s, "@"):
		n, err := strconv.Atoi(s[1:])
		if err != nil || n < 1 {
			return Bound{}, fmt.Errorf("%q is not a turn: @N counts turns from 1", s)
		}
		return Bound{Kind: BoundAbsolute, N: n - 1}, nil
	case strings.HasPrefix(s, "-"):
		n, err := strconv.Atoi(s[1:])
		if err != nil || n < 0 {
			return Bound{}, fmt.Errorf("%q is not a count of turns from the end", s)
		}
		return Bound{Kind: BoundFromEnd, N: n}, nil
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return Bound{Kind: BoundTurns, N: n}, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return Bound{}, fmt.Errorf("%q is neither a number of turns nor a duration (e.g. 3, 5h, 2d)", s)
	}
	return Bound{Kind: BoundAgo, D: d}, nil
}

// ParseRangeBound reads a --from/--to value: a 1-based turn number, -N
// (-1 is the last turn), a duration ago, or "last-compaction" (from only).
func ParseRangeBound(s string, from bool) (Bound, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "last-compaction") || strings.EqualFold(s, "last") {
		if !from {
			return Bound{}, errors.New("last-compaction is only valid for --from (it marks the most recent compaction)")
		}
		return Bound{Kind: BoundAfterLast}, nil
	}
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			return Bound{}, fmt.Errorf("%q: from-end offsets count from 1 (-1 is the last turn)", s)
		}
		return Bound{Kind: BoundFromEnd, N: n - 1}, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 {
			return Bound{}, fmt.Errorf("%q: turn numbers count from 1", s)
		}
		return Bound{Kind: BoundAbsolute, N: n - 1}, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return Bound{}, fmt.Errorf("%q is neither a turn number, -N, a duration (e.g. 5h) nor last-compaction", s)
	}
	return Bound{Kind: BoundAgo, D: d}, nil
}

// ParseDuration reads a duration as Go does, with days ("2d") and weeks
// ("1w") besides.
func ParseDuration(s string) (time.Duration, error) {
	for _, u := range []struct {
		suffix string
		d      time.Duration
	}{{"d", 24 * time.Hour}, {"w", 7 * 24 * time.Hour}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("bad duration %q", s)
			}
			return time.Duration(v) * u.d, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return d, nil
}

// ToolsMode is a -t/--tool-calls value.
func ToolsMode(s string) (*conversation.ToolCallPolicy, error) {
	switch s {
	case "strip", "s", "":
		return &conversation.ToolCallPolicy{Request: true, Response: true}, nil
	case "strip-requests", "strip_requests", "sreq":
		return &conversation.ToolCallPolicy{Request: true}, nil
	case "strip-responses", "strip_responses", "sres":
		return &conversation.ToolCallPolicy{Response: true}, nil
	case "omit", "o":
		return &conversation.ToolCallPolicy{Omit: true}, nil
	}
	return nil, fmt.Errorf("tool call mode %q: expected one of strip (s), strip-requests (sreq), strip-responses (sres), omit (o)", s)
}

// Summary is a rule's summary: by Model ("" for the conversation's),
// with Instructions (the system prompt; "" for the built-in ones) and
// Context (more guidance for this summary).
type Summary struct {
	Model        string
	Instructions string
	Context      string
}

// Rule is one compaction rule: which turns (KeepFirst/KeepLast: the
// turns left alone at each end) and what is done to them.
type Rule struct {
	KeepFirst Bound
	KeepLast  Bound
	Reasoning bool
	Tools     *conversation.ToolCallPolicy
	Summary   *Summary
}

// DefaultRule is the Rust jp's built-in rule: keep the first and the last
// turn, strip reasoning and tool calls of the others.
func DefaultRule() Rule {
	return Rule{KeepFirst: Bound{Kind: BoundTurns, N: 1}, KeepLast: Bound{Kind: BoundTurns, N: 1},
		Reasoning: true, Tools: &conversation.ToolCallPolicy{Request: true, Response: true}}
}

// Empty reports whether the rule does nothing to its turns.
func (r Rule) Empty() bool { return !r.Reasoning && r.Tools == nil && r.Summary == nil }

// Spec is a compaction to make: its rules, each applied to the range its
// bounds give, unless From/To (the command line's range) override them.
type Spec struct {
	Rules []Rule
	From  Bound
	To    Bound
	// KeepFirst and KeepLast, when set, replace every rule's own
	// (--keep-first, --keep-last).
	KeepFirst *Bound
	KeepLast  *Bound
}

// View is what the rules need of a conversation: its turns' start times
// and the overlays in effect (oldest first).
type View struct {
	Starts   []time.Time // the first event's time of each turn
	Overlays []conversation.Compaction
}

// Turns counts the turns.
func (v View) Turns() int { return len(v.Starts) }

// Range is an inclusive range of 0-based turns.
type Range struct{ From, To int }

// afterLast is the turn after the latest compaction's range.
func (v View) afterLast() int {
	pos := 0
	for _, c := range v.Overlays {
		pos = max(pos, c.ToTurn+1)
	}
	return pos
}

// turnAt is the last turn started at or before t, -1 when none.
func (v View) turnAt(t time.Time) int {
	k := -1
	for i, s := range v.Starts {
		if s.After(t) {
			break
		}
		k = i
	}
	return k
}

// resolved is a bound resolved against a view: ok false means the
// selection is empty, set false means the default end; at counts from the
// last turn with fromEnd, afterCmp is the turn after the latest overlay.
type resolved struct {
	at       int
	set, ok  bool
	fromEnd  bool
	afterCmp bool
}

func (v View) fromBound(b Bound, keep bool, now time.Time) resolved {
	switch b.Kind {
	case BoundDefault:
		return resolved{ok: true}
	case BoundTurns:
		return resolved{at: b.N, set: true, ok: true}
	case BoundAbsolute:
		return resolved{at: b.N, set: true, ok: true}
	case BoundFromEnd:
		return resolved{at: b.N, set: true, ok: true, fromEnd: true}
	case BoundAfterLast:
		return resolved{set: true, ok: true, afterCmp: true}
	case BoundAgo:
		if keep {
			// Keep the opening window: start after the turn active at
			// the conversation's start + d.
			if len(v.Starts) == 0 {
				return resolved{}
			}
			k := v.turnAt(v.Starts[0].Add(b.D))
			return resolved{at: k + 1, set: true, ok: true}
		}
		k := v.turnAt(now.Add(-b.D))
		if k+1 >= v.Turns() {
			return resolved{}
		}
		return resolved{at: k + 1, set: true, ok: true}
	}
	return resolved{ok: true}
}

func (v View) toBound(b Bound, keep bool, now time.Time) resolved {
	switch b.Kind {
	case BoundDefault:
		return resolved{ok: true}
	case BoundTurns, BoundFromEnd:
		if keep || b.Kind == BoundFromEnd {
			return resolved{at: b.N, set: true, ok: true, fromEnd: true}
		}
		return resolved{at: b.N, set: true, ok: true}
	case BoundAbsolute:
		return resolved{at: b.N, set: true, ok: true}
	case BoundAfterLast:
		if keep {
			return resolved{ok: true}
		}
		return resolved{set: true, ok: true, afterCmp: true}
	case BoundAgo:
		// Compact the turns older than the last d; none when all are
		// younger.
		k := v.turnAt(now.Add(-b.D))
		if k < 0 {
			return resolved{}
		}
		return resolved{at: k, set: true, ok: true}
	}
	return resolved{ok: true}
}

// resolveRange is the Rust jp's resolve_range: the start clamps to an
// empty range past the end, the end clamps to the last turn.
func (v View) resolveRange(from, to resolved) (Range, bool) {
	count := v.Turns()
	if count == 0 || !from.ok || !to.ok {
		return Range{}, false
	}
	last := count - 1
	f, t := 0, last
	if from.set {
		switch {
		case from.afterCmp:
			f = v.afterLast()
		case from.fromEnd:
			f = max(0, last-from.at)
		default:
			f = from.at
		}
		if f > last {
			return Range{}, false
		}
	}
	if to.set {
		switch {
		case to.afterCmp:
			t = min(v.afterLast(), last)
		case to.fromEnd:
			if to.at > last {
				return Range{}, false
			}
			t = last - to.at
		default:
			t = min(to.at, last)
		}
	}
	if f > t {
		return Range{}, false
	}
	return Range{From: f, To: t}, true
}

// extendSummary grows a summary's range to the union of every summary
// overlay it touches, until stable (the Rust jp's extend_summary_range):
// a summary cannot be split, so re-summarising part of one refreshes it.
func extendSummary(overlays []conversation.Compaction, r Range) Range {
	for changed := true; changed; {
		changed = false
		for _, c := range overlays {
			if c.Summary == nil || r.From > c.ToTurn || r.To < c.FromTurn {
				continue
			}
			if nf, nt := min(r.From, c.FromTurn), max(r.To, c.ToTurn); nf != r.From || nt != r.To {
				r, changed = Range{From: nf, To: nt}, true
			}
		}
	}
	return r
}

// Planned is one overlay a rule makes: its range and policies; a summary
// rule's text is written by a model afterwards (Summary set, Text empty).
type Planned struct {
	Range   Range
	Rule    Rule
	Overlay conversation.Compaction
}

// Plan resolves each rule of spec against v (at time now) into the
// overlay it appends; rules whose range is empty, and rules that do
// nothing, plan none. The turn in progress is left alone by the
// projection whatever the range says.
func Plan(v View, spec Spec, now time.Time) []Planned {
	var out []Planned
	overlays := append([]conversation.Compaction(nil), v.Overlays...)
	for _, r := range spec.Rules {
		if r.Empty() {
			continue
		}
		if spec.KeepFirst != nil {
			r.KeepFirst = *spec.KeepFirst
		}
		if spec.KeepLast != nil {
			r.KeepLast = *spec.KeepLast
		}
		from := v.fromBound(spec.From, false, now)
		if spec.From.Kind == BoundDefault {
			from = v.fromBound(r.KeepFirst, true, now)
		}
		to := v.toBound(spec.To, false, now)
		if spec.To.Kind == BoundDefault {
			to = v.toBound(r.KeepLast, true, now)
		}
		rg, ok := v.resolveRange(from, to)
		if !ok {
			continue
		}
		c := conversation.Compaction{StripReasoning: r.Reasoning, Tools: r.Tools}
		if r.Summary != nil {
			rg = extendSummary(overlays, rg)
			empty := ""
			c.Summary = &empty
		}
		c.FromTurn, c.ToTurn = rg.From, rg.To
		overlays = append(overlays, c)
		out = append(out, Planned{Range: rg, Rule: r, Overlay: c})
	}
	return out
}

// Label describes an overlay's policies ("summary", "reasoning stripped,
// tool calls omitted").
func Label(c conversation.Compaction) string {
	if c.Summary != nil {
		return "summary"
	}
	var parts []string
	if c.StripReasoning {
		parts = append(parts, "reasoning stripped")
	}
	if t := c.Tools; t != nil {
		switch {
		case t.Omit:
			parts = append(parts, "tool calls omitted")
		case t.Request && t.Response:
			parts = append(parts, "tool calls stripped")
		case t.Request:
			parts = append(parts, "tool call requests stripped")
		case t.Response:
			parts = append(parts, "tool call responses stripped")
		}
	}
	return strings.Join(parts, ", ")
}

// ParseRule reads an inline rule (--compact=SPEC), the Rust jp's
// POLICIES[:RANGE]: policies joined with "+" (r or reasoning; s or
// summarize; t or tools, t=MODE), and a range FROM..TO (1-based and
// inclusive, -N from the end, either side open), N (from turn N on) or
// -N (all but the last N).
func ParseRule(s string) (Rule, error) {
	policies, rangeStr, hasRange := strings.Cut(s, ":")
	r := Rule{KeepFirst: Bound{Kind: BoundTurns, N: 1}, KeepLast: Bound{Kind: BoundTurns, N: 1}}
	for p := range strings.SplitSeq(policies, "+") {
		key, val, hasVal := strings.Cut(strings.TrimSpace(p), "=")
		switch strings.TrimSpace(key) {
		case "r", "reasoning":
			if hasVal {
				return r, errors.New("reasoning takes no value")
			}
			r.Reasoning = true
		case "s", "summarize":
			if hasVal {
				return r, errors.New("summarize takes no value")
			}
			r.Summary = &Summary{}
		case "t", "tools":
			t, err := ToolsMode(strings.TrimSpace(val))
			if err != nil {
				return r, err
			}
			r.Tools = t
		case "":
			return r, errors.New("empty policy")
		default:
			return r, fmt.Errorf("unknown policy %q (r, s, t or t=MODE)", key)
		}
	}
	if !hasRange {
		return r, nil
	}
	bound := func(s string) (Bound, error) {
		if rest, ok := strings.CutPrefix(s, "-"); ok {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 0 {
				return Bound{}, fmt.Errorf("bad bound %q", s)
			}
			return Bound{Kind: BoundFromEnd, N: n}, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return Bound{}, fmt.Errorf("bad bound %q: turns count from 1", s)
		}
		return Bound{Kind: BoundAbsolute, N: n - 1}, nil
	}
	r.KeepFirst, r.KeepLast = Bound{Kind: BoundTurns}, Bound{Kind: BoundFromEnd}
	left, right, isRange := strings.Cut(rangeStr, "..")
	if !isRange {
		b, err := bound(rangeStr)
		if err != nil {
			return r, err
		}
		if b.Kind == BoundFromEnd {
			r.KeepLast = b
		} else {
			r.KeepFirst = b
		}
		return r, nil
	}
	var err error
	if left != "" {
		if r.KeepFirst, err = bound(left); err != nil {
			return r, err
		}
	}
	if right != "" {
		if r.KeepLast, err = bound(right); err != nil {
			return r, err
		}
	}
	return r, nil
}
