package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Scalar is implemented by value types whose accepted values are not a
// closed list (a number that may be unset, a string or an integer). The
// loader validates and decodes them through EnumSetter on the pointer,
// renders them through ConfigValue (nil: not written) and publishes
// ScalarSchema in the JSON Schema.
type Scalar interface {
	ConfigValue() any
	ScalarSchema() map[string]any
}

// ModelParameters is the [assistant.model.parameters] table.
type ModelParameters struct {
	MaxTokens   int       `toml:"max_tokens" doc:"The most tokens a response may have. 0: the model family's default (Anthropic: the model's maximum output; OpenAI: the model's own limit). A response cut by it is recorded with stop reason length and reported in one line."`
	Temperature OptFloat  `toml:"temperature" doc:"Sampling temperature (0 to 2; Anthropic 0 to 1). Unset: the provider's default. Anthropic refuses it while thinking is on."`
	TopP        OptFloat  `toml:"top_p" doc:"Nucleus sampling: the probability mass of tokens considered (0 to 1). Unset: the provider's default."`
	Stop        StopList  `toml:"stop" doc:"Stop sequences: a string or an array of strings. Generation ends when the model writes one."`
	Reasoning   Reasoning `toml:"reasoning" doc:"How much the model thinks before answering: off, auto, low, medium, high, max, or a token budget (an integer, at least 1024 for Anthropic). Unset: the model's default (Anthropic: off). Anthropic: thinking with budget_tokens (adaptive for auto on models that have it) and effort; OpenAI: reasoning_effort (Responses: reasoning.effort); Ollama: think; Gemini: thinkingConfig; OpenRouter, llama.cpp, Cerebras, DeepSeek: their own switches (docs/providers.md)."`
	ToolChoice  string    `toml:"tool_choice" doc:"Whether the model must call a tool: auto (it decides), none (no tool calls), required (at least one), or a tool's name (that tool). Empty: auto."`
}

// OptFloat is a number that may be unset.
type OptFloat struct {
	Value float64
	Set   bool
}

// Float returns a set OptFloat.
func Float(v float64) OptFloat { return OptFloat{Value: v, Set: true} }

// Ptr returns the value, or nil when unset.
func (f OptFloat) Ptr() *float64 {
	if !f.Set {
		return nil
	}
	v := f.Value
	return &v
}

// ConfigValue implements Scalar.
func (f OptFloat) ConfigValue() any {
	if !f.Set {
		return nil
	}
	return f.Value
}

// ScalarSchema implements Scalar.
func (OptFloat) ScalarSchema() map[string]any { return map[string]any{"type": "number"} }

// SetConfigValue implements EnumSetter: a float or an integer.
func (f *OptFloat) SetConfigValue(v any) error {
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return fmt.Errorf("expected a number, got %v", n)
		}
		*f = Float(n)
	case int64:
		*f = Float(float64(n))
	case string:
		x, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("expected a number, got %q", n)
		}
		*f = Float(x)
	default:
		return fmt.Errorf("expected a number, got %v", v)
	}
	if f.Value < 0 {
		return fmt.Errorf("expected a number of at least 0, got %v", f.Value)
	}
	return nil
}

// StopList is a list of stop sequences, written as one string or an
// array.
type StopList []string

// ConfigValue implements Scalar.
func (s StopList) ConfigValue() any {
	if s == nil {
		return nil
	}
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// ScalarSchema implements Scalar.
func (StopList) ScalarSchema() map[string]any {
	return map[string]any{"type": []any{"string", "array"}, "items": map[string]any{"type": "string"}}
}

// SetConfigValue implements EnumSetter.
func (s *StopList) SetConfigValue(v any) error {
	switch x := v.(type) {
	case string:
		if x == "" {
			*s = StopList{}
			return nil
		}
		*s = StopList{x}
	case []any:
		out := make(StopList, 0, len(x))
		for i, it := range x {
			str, ok := it.(string)
			if !ok || str == "" {
				return fmt.Errorf("expected an array of non-empty strings, got %v at index %d", it, i)
			}
			out = append(out, str)
		}
		*s = out
	default:
		return fmt.Errorf("expected a string or an array of strings, got %v", v)
	}
	return nil
}

// ReasoningLevels are the named values of assistant.model.parameters.reasoning.
var ReasoningLevels = []string{"off", "auto", "low", "medium", "high", "max"}

// rustEfforts are the Rust jp's reasoning efforts this jp has no level of,
// with the level they stand for here: the nearest one that does not spend
// more.
var rustEfforts = map[string]string{"none": "off", "xhigh": "high", "xlow": "low"}

// Reasoning is assistant.model.parameters.reasoning: a level name or a
// token budget. The zero value is unset.
type Reasoning struct {
	Level  string
	Budget int
}

// String is the level or the budget; "" when unset.
func (r Reasoning) String() string {
	if r.Budget > 0 {
		return strconv.Itoa(r.Budget)
	}
	return r.Level
}

// ConfigValue implements Scalar.
func (r Reasoning) ConfigValue() any {
	switch {
	case r.Budget > 0:
		return int64(r.Budget)
	case r.Level != "":
		return r.Level
	}
	return nil
}

// ScalarSchema implements Scalar.
func (Reasoning) ScalarSchema() map[string]any {
	levels := make([]any, len(ReasoningLevels))
	for i, l := range ReasoningLevels {
		levels[i] = l
	}
	return map[string]any{"oneOf": []any{
		map[string]any{"type": "string", "enum": levels},
		map[string]any{"type": "integer", "minimum": 1},
	}}
}

// SetConfigValue implements EnumSetter.
func (r *Reasoning) SetConfigValue(v any) error {
	bad := fmt.Errorf("expected one of %s, or a token budget (a positive integer), got %v", strings.Join(ReasoningLevels, ", "), v)
	switch x := v.(type) {
	case int64:
		if x < 1 || x > math.MaxInt32 {
			return bad
		}
		*r = Reasoning{Budget: int(x)}
		return nil
	case string:
		if l, ok := rustEfforts[x]; ok {
			x = l
		}
		for _, l := range ReasoningLevels {
			if x == l {
				*r = Reasoning{Level: l}
				return nil
			}
		}
		if n, err := strconv.Atoi(x); err == nil && n >= 1 {
			*r = Reasoning{Budget: n}
			return nil
		}
		if x == "" {
			*r = Reasoning{}
			return nil
		}
	}
	return bad
}

// Pricing is what a model costs, in US dollars per million tokens.
type Pricing struct {
	Input      OptFloat `toml:"input" doc:"Dollars per million input tokens."`
	Output     OptFloat `toml:"output" doc:"Dollars per million output tokens (reasoning included)."`
	CacheRead  OptFloat `toml:"cache_read" doc:"Dollars per million input tokens read from the prompt cache. Unset: the input price."`
	CacheWrite OptFloat `toml:"cache_write" doc:"Dollars per million input tokens written to the prompt cache. Unset: the input price."`
}
