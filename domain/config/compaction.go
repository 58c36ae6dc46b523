package config

import (
	"fmt"
	"strconv"
)

// Compaction is the [conversation.compaction] table (the Rust jp's).
type Compaction struct {
	Rules []CompactionRule `toml:"rules" doc:"The rules jp conversation compact (and jp query --compact) applies when no policy flag is given, in order: each appends one overlay. Unset: keep the first and the last turn, strip reasoning and tool calls of the others. See docs/conversations.md, \"Compaction\"."`
	Auto  CompactionAuto   `toml:"auto" doc:"Automatic compaction between turns, when the next request would fill too much of the model's context window (off by default)."`
}

// CompactionAuto is the [conversation.compaction.auto] table (the Rust
// jp's draft design of automatic compaction).
type CompactionAuto struct {
	Enabled      bool            `toml:"enabled" doc:"Compact automatically between turns (and once, then retry, when the provider refuses a request for exceeding the window). Default false."`
	TriggerRatio OptFloat        `toml:"trigger_ratio" doc:"Compact when the estimated next request exceeds this share of the model's context window (0 to 1). Unset: 0.75."`
	MinTurns     int             `toml:"min_turns" doc:"Never compact a conversation of this many turns or fewer. Default 5."`
	Rule         *CompactionRule `toml:"rule" doc:"The rule each automatic compaction applies to the turns after the last compaction (and after keep_first), up to keep_last from the end. Unset: keep_first 1, keep_last 3, strip reasoning and tool calls."`
}

// DefaultTriggerRatio is conversation.compaction.auto.trigger_ratio unset.
const DefaultTriggerRatio = 0.75

// Ratio is the trigger ratio in effect.
func (a CompactionAuto) Ratio() float64 {
	if a.TriggerRatio.Set && a.TriggerRatio.Value > 0 {
		return a.TriggerRatio.Value
	}
	return DefaultTriggerRatio
}

// CompactionRule is one [[conversation.compaction.rules]] table.
type CompactionRule struct {
	KeepFirst RuleBound          `toml:"keep_first" doc:"Turns left alone at the start: a count (default 1), a duration from the start (e.g. \"2h\"), \"@N\" (from turn N) or \"last-compaction\" (after the latest compaction)."`
	KeepLast  RuleBound          `toml:"keep_last" doc:"Turns left alone at the end: a count (default 1) or a duration (e.g. \"1d\": the turns of the last day)."`
	Reasoning string             `toml:"reasoning" doc:"\"strip\": drop the reasoning of the compacted turns."`
	ToolCalls string             `toml:"tool_calls" doc:"What is done to the compacted turns' tool calls: strip (arguments emptied, results replaced by a status line), strip-requests, strip-responses, or omit (removed)."`
	Summary   *CompactionSummary `toml:"summary" doc:"When set, the compacted turns are replaced by a summary a model writes."`
}

// CompactionSummary is a rule's [summary] table.
type CompactionSummary struct {
	Model        SummaryModel `toml:"model" doc:"The model that writes the summary; unset: the conversation's model."`
	Instructions string       `toml:"instructions" doc:"The summarizer's instructions (its system prompt); empty: jp's, which keep decisions, open questions, file paths and identifiers."`
	Context      string       `toml:"context" doc:"More guidance for the summary, e.g. \"focus on the architecture\"."`
}

// SummaryModel is the [summary.model] table.
type SummaryModel struct {
	ID string `toml:"id" doc:"\"<provider>/<model>\" or an alias."`
}

// RuleBound is a keep_first/keep_last value: a number of turns or a
// string (a duration, "@N", "last-compaction"), kept as written; the
// compaction rules read it (domain/compact.ParseKeep). Empty is unset.
type RuleBound string

// ConfigValue implements Scalar.
func (b RuleBound) ConfigValue() any {
	if b == "" {
		return nil
	}
	if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		return n
	}
	return string(b)
}

// ScalarSchema implements Scalar.
func (RuleBound) ScalarSchema() map[string]any {
	return map[string]any{"oneOf": []any{
		map[string]any{"type": "integer", "minimum": 0},
		map[string]any{"type": "string"},
	}}
}

// SetConfigValue implements EnumSetter.
func (b *RuleBound) SetConfigValue(v any) error {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return fmt.Errorf("expected a number of turns (0 or more) or a duration such as \"2h\", got %d", x)
		}
		*b = RuleBound(strconv.FormatInt(x, 10))
	case string:
		if x == "" {
			return fmt.Errorf("expected a number of turns or a duration such as \"2h\", got an empty string")
		}
		*b = RuleBound(x)
	default:
		return fmt.Errorf("expected a number of turns or a duration such as \"2h\", got %v", v)
	}
	return nil
}
