// Package llm holds the provider-neutral model of a chat request and of
// the typed events a provider streams back (docs/configuration.md). Provider
// adapters in adapters/llm translate it to and from each vendor's API.
package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Role is the author of a Message.
type Role int

// Message roles.
const (
	RoleUnknown Role = iota
	RoleUser
	RoleAssistant
	RoleTool
)

// String names the role.
func (r Role) String() string {
	switch r {
	case RoleUser:
		return "user"
	case RoleAssistant:
		return "assistant"
	case RoleTool:
		return "tool"
	}
	return "unknown"
}

// ToolCall is one call the model asked for.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage // a JSON object
}

// Message is one entry of the history sent to a provider.
//
//   - RoleUser: Text.
//   - RoleAssistant: Text and/or Reasoning, and ToolCalls.
//   - RoleTool: the result of ToolCallID in Text, IsError when it failed.
type Message struct {
	Role       Role
	Text       string
	Reasoning  string
	ToolCalls  []ToolCall
	ToolCallID string
	IsError    bool
}

// Tool is a tool offered to the model.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON Schema of the arguments (an object)
}

// Request is one provider call.
type Request struct {
	// Model is the model name without the provider prefix.
	Model string
	// System is the system prompt (assistant.system_prompt): instructions
	// sent before the conversation; "" sends none.
	System   string
	Messages []Message
	Tools    []Tool
	// Schema, when set, asks for structured output matching it.
	Schema json.RawMessage
	// PriorCalls is how many provider calls the conversation already had
	// (derived from stored events). The demo provider uses it to pick the
	// script entry; other providers ignore it.
	PriorCalls int
}

// EventKind is the kind of a streamed Event.
type EventKind int

// Stream event kinds. Errors are not events: Stream returns them (see
// *Error).
const (
	EventUnknown EventKind = iota
	// EventTextDelta carries a piece of assistant text in Text.
	EventTextDelta
	// EventReasoningDelta carries a piece of reasoning in Text.
	EventReasoningDelta
	// EventToolCall carries one complete tool call in ToolCall (providers
	// assemble calls streamed in pieces before emitting them).
	EventToolCall
	// EventUsage carries token counts in Usage.
	EventUsage
	// EventDone ends a successful stream.
	EventDone
	// EventChrome carries a line for the chrome channel in Text (the demo
	// model's notice).
	EventChrome
)

// Usage counts tokens.
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// Event is one typed item of a provider stream.
type Event struct {
	Kind     EventKind
	Text     string
	ToolCall ToolCall
	Usage    Usage
}

// ErrorKind classifies provider failures.
type ErrorKind int

// Provider error kinds.
const (
	ErrorUnknown ErrorKind = iota
	// ErrorTransient: retry with backoff (429, 5xx, a dropped stream).
	ErrorTransient
	// ErrorFatal: do not retry (a bad request).
	ErrorFatal
	// ErrorAuth: the credentials were refused (401/403); do not retry.
	ErrorAuth
)

// Error is what a provider returns when a call fails.
type Error struct {
	Kind     ErrorKind
	Provider string
	Status   int           // HTTP status when there was one
	Message  string        // the provider's message, one line
	Retry    time.Duration // a Retry-After hint, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// IsTransient reports whether err is a provider error worth retrying.
func IsTransient(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == ErrorTransient
}

// ModelID is "<provider>/<model>".
type ModelID struct {
	Provider string
	Model    string
}

// ParseModelID splits "<provider>/<model>". The model part may contain
// further slashes (OpenRouter-style names).
func ParseModelID(s string) (ModelID, error) {
	p, m, ok := strings.Cut(s, "/")
	if !ok || p == "" || m == "" {
		return ModelID{}, fmt.Errorf("model %q is not of the form <provider>/<model> (for example demo/echo or openai/gpt-4o)", s)
	}
	return ModelID{Provider: p, Model: m}, nil
}

// String returns "<provider>/<model>".
func (m ModelID) String() string { return m.Provider + "/" + m.Model }
