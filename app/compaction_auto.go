package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/compact"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

// Automatic compaction (conversation.compaction.auto, the Rust jp's draft
// design): between turns, when the estimated next request exceeds
// trigger_ratio of the model's context window, one rolling compaction is
// appended, as jp conversation compact would append it. It never runs
// mid-turn, fires at most once per turn boundary, and a queued reply goes
// out after it.

// autoRule is the rule automatic compaction applies: the configured one,
// else keep the first turn and the last three, strip reasoning and tool
// calls of the others.
func autoRule(a config.CompactionAuto) (compact.Rule, error) {
	if a.Rule == nil {
		r := compact.DefaultRule()
		r.KeepLast = compact.Bound{Kind: compact.BoundTurns, N: 3}
		return r, nil
	}
	rules, err := compact.FromConfig([]config.CompactionRule{*a.Rule})
	if err != nil {
		return compact.Rule{}, errors.New(strings.Replace(err.Error(), "conversation.compaction.rules[0]", "conversation.compaction.auto.rule", 1))
	}
	return rules[0], nil
}

// autoSpec is the rolling compaction due for a conversation whose meter
// is m, or false when none is: auto off, the window unknown, the estimate
// under the threshold, too few turns, or nothing left to compact. The
// range starts after keep_first and after the last compaction's range,
// and ends keep_last turns before the end.
func autoSpec(a config.CompactionAuto, m llm.ContextMeter, view compact.View, now time.Time) (CompactSpec, bool, error) {
	if !a.Enabled {
		return CompactSpec{}, false, nil
	}
	if r := a.Ratio(); r > 1 {
		return CompactSpec{}, false, fmt.Errorf("conversation.compaction.auto.trigger_ratio: %g is over 1: give a share of the window, e.g. 0.75", r)
	}
	if !m.Exceeds(a.Ratio()) || view.Turns() <= a.MinTurns {
		return CompactSpec{}, false, nil
	}
	return rollingSpec(a, view, now)
}

// rollingSpec is the rolling compaction of auto.rule over view, false
// when its range is empty.
func rollingSpec(a config.CompactionAuto, view compact.View, now time.Time) (CompactSpec, bool, error) {
	rule, err := autoRule(a)
	if err != nil {
		return CompactSpec{}, false, err
	}
	from := 0
	if rule.KeepFirst.Kind == compact.BoundTurns || rule.KeepFirst.Kind == compact.BoundAbsolute {
		from = rule.KeepFirst.N
	}
	for _, c := range view.Overlays {
		from = max(from, c.ToTurn+1)
	}
	if from >= view.Turns() {
		return CompactSpec{}, false, nil
	}
	spec := CompactSpec{Rules: []compact.Rule{rule}, From: compact.Bound{Kind: compact.BoundAbsolute, N: from}}
	plans := compact.Plan(view, compact.Spec{Rules: spec.Rules, From: spec.From}, now)
	if len(plans) == 0 {
		return CompactSpec{}, false, nil
	}
	return spec, true, nil
}

// autoCompact runs between turns: it appends the rolling compaction due,
// if any, and says so in one line. A failure (a summary the model did not
// write) leaves the conversation as it was and is said in one line; the
// run goes on.
func (q *Query) autoCompact(ctx context.Context, rs *runState) error {
	a := rs.cfg.Conversation.Compaction.Auto
	if !a.Enabled || rs.storage == "none" || rs.id == "" {
		return nil
	}
	before := q.nextMeter(rs)
	spec, due, err := autoSpec(a, before, rs.history.CompactionView(), q.clock.Now())
	if err != nil {
		return &UserError{Msg: err.Error(), Err: err}
	}
	if !due {
		return nil
	}
	// The turn's last events go first: the overlay follows the turn it
	// compacts.
	if err := q.flushCarry(ctx, rs); err != nil {
		return err
	}
	res, err := q.CompactLocked(context.WithoutCancel(ctx), rs.cfg, rs.loc, rs.id, rs.history, spec)
	if err != nil {
		q.chromeNote("Automatic compaction failed, the conversation is unchanged: " + oneLine(err.Error()))
		return nil
	}
	if len(res.Added) == 0 {
		return nil
	}
	c := res.Added[0]
	after := q.nextMeter(rs)
	q.chromeNote(fmt.Sprintf("Compacted %s automatically (%s; %s → %s); jp c compact --reset undoes it.", turnsText(c), compact.Label(c), before, after))
	return nil
}

// compactOnOverflow is automatic compaction's answer to a provider that
// refused the turn's request for exceeding the window: the rolling
// compaction, whatever the estimate and min_turns say, so that the request
// can be retried once. It reports whether anything was compacted; the
// turn in progress is never compacted.
func (q *Query) compactOnOverflow(ctx context.Context, rs *runState) bool {
	a := rs.cfg.Conversation.Compaction.Auto
	if !a.Enabled || rs.storage == "none" || rs.id == "" {
		return false
	}
	spec, due, err := rollingSpec(a, rs.history.CompactionView(), q.clock.Now())
	if err != nil || !due {
		return false
	}
	if err := q.flushCarry(ctx, rs); err != nil {
		return false
	}
	before := q.nextMeter(rs)
	res, err := q.CompactLocked(context.WithoutCancel(ctx), rs.cfg, rs.loc, rs.id, rs.history, spec)
	if err != nil || len(res.Added) == 0 {
		return false
	}
	c := res.Added[0]
	q.chromeNote(fmt.Sprintf("The request exceeded the context window of %s: compacted %s automatically (%s; %s → %s); retrying once.",
		rs.model, turnsText(c), compact.Label(c), before, q.nextMeter(rs)))
	return true
}

// turnsText names an overlay's turns, counted from 1.
func turnsText(c conversation.Compaction) string {
	if c.FromTurn == c.ToTurn {
		return fmt.Sprintf("turn %d", c.FromTurn+1)
	}
	return fmt.Sprintf("turns %d-%d", c.FromTurn+1, c.ToTurn+1)
}

// nextMeter is the meter of the conversation's next request between
// turns: the history as it would be sent, the system prompt and the
// tools the last turn offered.
func (q *Query) nextMeter(rs *runState) llm.ContextMeter {
	return meterOf(rs.cfg, rs.model, llm.Request{Model: rs.model.Model, System: rs.cfg.SystemPrompt(), Messages: rs.history.Messages(), Tools: rs.offered})
}
