package llm

import (
	"fmt"
	"strconv"
	"strings"
)

// Params are the provider-neutral model parameters of a request. Each
// provider adapter maps them to its own API; a zero field leaves the
// provider's default for the model.
type Params struct {
	// MaxTokens caps the response; 0 means the provider's default for the
	// model family (Anthropic: the model's maximum output).
	MaxTokens int
	// Temperature and TopP are sampling parameters; nil sends none.
	Temperature *float64
	TopP        *float64
	// Stop are stop sequences.
	Stop []string
	// Reasoning is how much the model thinks before answering.
	Reasoning Reasoning
	// ToolChoice says whether and which tool the model must call.
	ToolChoice ToolChoice
}

// ReasoningLevel is a named amount of reasoning.
type ReasoningLevel string

// Reasoning levels. ReasoningDefault (empty) leaves the model's default.
const (
	ReasoningDefault ReasoningLevel = ""
	ReasoningOff     ReasoningLevel = "off"
	ReasoningAuto    ReasoningLevel = "auto"
	ReasoningLow     ReasoningLevel = "low"
	ReasoningMedium  ReasoningLevel = "medium"
	ReasoningHigh    ReasoningLevel = "high"
	ReasoningMax     ReasoningLevel = "max"
)

// ReasoningLevels are the accepted level names, in documentation order.
var ReasoningLevels = []ReasoningLevel{ReasoningOff, ReasoningAuto, ReasoningLow, ReasoningMedium, ReasoningHigh, ReasoningMax}

// Reasoning is a level, or a token budget (Budget > 0, Level empty).
type Reasoning struct {
	Level  ReasoningLevel
	Budget int
}

// IsSet reports whether anything was asked for.
func (r Reasoning) IsSet() bool { return r.Level != ReasoningDefault || r.Budget > 0 }

// Enabled reports whether reasoning was asked for (a level other than off,
// or a budget).
func (r Reasoning) Enabled() bool {
	return r.Budget > 0 || (r.Level != ReasoningDefault && r.Level != ReasoningOff)
}

// String is the level name, or the budget as digits; "" when unset.
func (r Reasoning) String() string {
	if r.Budget > 0 {
		return strconv.Itoa(r.Budget)
	}
	return string(r.Level)
}

// ParseReasoning reads "off", "auto", "low", "medium", "high", "max" or a
// positive token budget ("4096").
func ParseReasoning(s string) (Reasoning, error) {
	s = strings.TrimSpace(s)
	for _, l := range ReasoningLevels {
		if s == string(l) {
			return Reasoning{Level: l}, nil
		}
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 {
			return Reasoning{}, fmt.Errorf("reasoning budget %d: expected a positive number of tokens", n)
		}
		return Reasoning{Budget: n}, nil
	}
	return Reasoning{}, fmt.Errorf("reasoning %q: expected off, auto, low, medium, high, max or a token budget (e.g. 4096)", s)
}

// ToolChoiceMode is how the model may use the offered tools.
type ToolChoiceMode string

// Tool choice modes. ToolChoiceDefault leaves the provider's default
// (auto).
const (
	ToolChoiceDefault  ToolChoiceMode = ""
	ToolChoiceAuto     ToolChoiceMode = "auto"
	ToolChoiceNone     ToolChoiceMode = "none"
	ToolChoiceRequired ToolChoiceMode = "required"
	// ToolChoiceTool: the model must call the tool Name.
	ToolChoiceTool ToolChoiceMode = "tool"
)

// ToolChoice is a mode, and the tool's name for ToolChoiceTool.
type ToolChoice struct {
	Mode ToolChoiceMode
	Name string
}

// ParseToolChoice reads "auto", "none", "required", or a tool's name; ""
// is the default.
func ParseToolChoice(s string) (ToolChoice, error) {
	s = strings.TrimSpace(s)
	switch ToolChoiceMode(s) {
	case ToolChoiceDefault:
		return ToolChoice{}, nil
	case ToolChoiceAuto, ToolChoiceNone, ToolChoiceRequired:
		return ToolChoice{Mode: ToolChoiceMode(s)}, nil
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return ToolChoice{}, fmt.Errorf("tool_choice %q: expected auto, none, required or the name of a tool", s)
	}
	return ToolChoice{Mode: ToolChoiceTool, Name: s}, nil
}

// Effort is r on the low|medium|high scale of providers that take an
// effort rather than a token budget: a budget under 8,192 tokens is low,
// under 24,576 medium, else high; max is high; off, auto and unset stay as
// they are.
func (r Reasoning) Effort() ReasoningLevel {
	switch {
	case r.Budget > 0 && r.Budget < 8192:
		return ReasoningLow
	case r.Budget > 0 && r.Budget < 24576:
		return ReasoningMedium
	case r.Budget > 0, r.Level == ReasoningMax:
		return ReasoningHigh
	}
	return r.Level
}
