package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Style is the [style] table: how jp query's output looks. The Rust jp's
// other style keys (typewriter, inline_code, lock_wait, mcp_startup,
// streaming, code.line_numbers and links, the markdown layout, reasoning
// summary_model and background, tool_call progress) have no matching
// output here and are read with a warning.
type Style struct {
	Reasoning StyleReasoning `toml:"reasoning" doc:"How the model's reasoning is shown."`
	ToolCall  StyleToolCall  `toml:"tool_call" doc:"How tool calls are shown."`
	Markdown  StyleMarkdown  `toml:"markdown" doc:"How answers (markdown) are rendered on a terminal."`
	Code      StyleCode      `toml:"code" doc:"How code blocks are rendered on a terminal."`
}

// StyleReasoning is [style.reasoning].
type StyleReasoning struct {
	Display ReasoningDisplay `toml:"display" doc:"full (the default): the reasoning as it streams; hidden: none; a number N (or truncate): its first N characters (100 for truncate); static, progress, timer and summary: a spinner while the model reasons, no text (this jp writes no summaries). The reasoning is recorded whatever this says; --hide-reasoning hides it."`
}

// StyleToolCall is [style.tool_call].
type StyleToolCall struct {
	Show      OptBool `toml:"show" doc:"false: tool calls and their results are not shown (they still run and are recorded), like --hide-tool-calls. Unset: shown."`
	Arguments OptBool `toml:"arguments" doc:"true: a tool call's line shows its arguments (compact JSON) instead of what it acts on, as jp -v does. Unset: false."`
}

// StyleMarkdown is [style.markdown].
type StyleMarkdown struct {
	Theme string `toml:"theme" doc:"The colour theme of rendered answers and code: a name with light in it (e.g. Solarized (light)) picks colours for a light background, any other name (gruvbox-dark, the default) for a dark one."`
}

// StyleCode is [style.code].
type StyleCode struct {
	Color OptBool `toml:"color" doc:"false: code blocks and inline code are not coloured. Unset: coloured."`
}

// LightTheme reports whether the markdown theme is one for a light
// background.
func (s StyleMarkdown) LightTheme() bool {
	return strings.Contains(strings.ToLower(s.Theme), "light")
}

// ReasoningDisplay is style.reasoning.display.
type ReasoningDisplay struct {
	// Mode is full, hidden, summary, static, progress, timer or truncate;
	// "" is full.
	Mode string
	// Chars is truncate's number of characters.
	Chars int
}

var reasoningModes = []string{"full", "hidden", "summary", "static", "progress", "timer", "truncate"}

// ConfigValue implements Scalar.
func (d ReasoningDisplay) ConfigValue() any {
	switch d.Mode {
	case "":
		return nil
	case "truncate":
		return strconv.Itoa(d.Chars)
	}
	return d.Mode
}

// ScalarSchema implements Scalar.
func (ReasoningDisplay) ScalarSchema() map[string]any {
	return map[string]any{"type": []any{"string", "integer"}}
}

// SetConfigValue implements EnumSetter: a mode's name, or a number of
// characters (as the Rust jp's truncate fallback).
func (d *ReasoningDisplay) SetConfigValue(v any) error {
	want := "expected one of " + strings.Join(reasoningModes, ", ") + ", or a number of characters"
	switch x := v.(type) {
	case int64:
		if x < 1 {
			return fmt.Errorf("%s, got %d", want, x)
		}
		*d = ReasoningDisplay{Mode: "truncate", Chars: int(x)}
		return nil
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil && n > 0 {
			*d = ReasoningDisplay{Mode: "truncate", Chars: n}
			return nil
		}
		for _, m := range reasoningModes {
			if x == m {
				*d = ReasoningDisplay{Mode: m}
				if m == "truncate" {
					d.Chars = 100
				}
				return nil
			}
		}
		return fmt.Errorf("%s, got %q", want, x)
	}
	return fmt.Errorf("%s, got %v", want, v)
}

// Hidden reports whether no reasoning text is shown.
func (d ReasoningDisplay) Hidden() bool {
	switch d.Mode {
	case "", "full", "truncate":
		return false
	}
	return true
}

// Spinner reports whether a spinner stands for the reasoning.
func (d ReasoningDisplay) Spinner() bool {
	switch d.Mode {
	case "summary", "static", "progress", "timer":
		return true
	}
	return false
}

// OptBool is true or false, or unset.
type OptBool struct {
	Value bool
	Set   bool
}

// Or is the value, or def when unset.
func (b OptBool) Or(def bool) bool {
	if !b.Set {
		return def
	}
	return b.Value
}

// ConfigValue implements Scalar.
func (b OptBool) ConfigValue() any {
	if !b.Set {
		return nil
	}
	return b.Value
}

// ScalarSchema implements Scalar.
func (OptBool) ScalarSchema() map[string]any { return map[string]any{"type": "boolean"} }

// SetConfigValue implements EnumSetter: true or false ("true"/"false"
// from --cfg and JP_CFG_ variables).
func (b *OptBool) SetConfigValue(v any) error {
	switch x := v.(type) {
	case bool:
		*b = OptBool{Value: x, Set: true}
		return nil
	case string:
		if p, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
			*b = OptBool{Value: p, Set: true}
			return nil
		}
	}
	return fmt.Errorf("expected true or false, got %v", v)
}
