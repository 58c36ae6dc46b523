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
//   - RoleUser: Text, and Attachments (sent before the text).
//   - RoleAssistant: Text and/or Reasoning (with its Thinking blocks), and
//     ToolCalls.
//   - RoleTool: the result of ToolCallID in Text, IsError when it failed.
type Message struct {
	Role      Role
	Text      string
	Reasoning string
	// Thinking are the reasoning blocks of an assistant message in order,
	// each with the provider's signature when it sent one. A provider that
	// needs its reasoning back (Anthropic thinking with tool use) sends the
	// signed ones; the others ignore them.
	Thinking    []Thinking
	Attachments []Attachment
	ToolCalls   []ToolCall
	ToolCallID  string
	IsError     bool
}

// Thinking is one reasoning block as the provider streamed it.
type Thinking struct {
	Text      string
	Signature string
}

// Attachment is context attached to a user message: text (a file, a
// command's output, a web page) or an image.
type Attachment struct {
	// Name says where it came from: a path, "cmd:<command>", a URL, "-".
	Name string
	// MediaType is "text/plain" for text, or the image's type
	// ("image/png", "image/jpeg", "image/gif", "image/webp").
	MediaType string
	// Text is the content of a text attachment.
	Text string
	// Data is the content of an image.
	Data []byte
}

// AttachmentText is how a text attachment is put before the message: the
// content between delimiter lines that name its source.
func AttachmentText(a Attachment) string {
	text := a.Text
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return "<attachment source=\"" + a.Name + "\">\n" + text + "</attachment>"
}

// IsImage reports whether the attachment is an image.
func (a Attachment) IsImage() bool { return strings.HasPrefix(a.MediaType, "image/") }

// ImageTypes are the image media types attachments may carry.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

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
	// Params are the model parameters (assistant.model.parameters and
	// their flags); the zero value leaves every one to the provider's
	// default for the model.
	Params Params
	// PriorCalls is how many provider calls the conversation already had
	// (derived from stored events). The demo provider uses it to pick the
	// script entry; other providers ignore it.
	PriorCalls int
	// Title marks a request for the conversation's title
	// (conversation.title.model): not a step of the conversation. Real
	// providers send it like any other (its System prompt asks for the
	// title); the demo provider answers it with a title of its own
	// instead of playing its script.
	Title bool
	// Summary marks a request for a compaction summary (jp conversation
	// compact --summarize): not a step of the conversation either. The
	// demo provider answers it with a deterministic summary of its own.
	Summary bool
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
	// EventReasoningSignature carries, in Text, the provider's signature of
	// the reasoning block being streamed (Anthropic's signature_delta).
	EventReasoningSignature
)

// Usage counts tokens. InputTokens counts every input token, those read
// from or written to the prompt cache included; ReasoningTokens are part
// of OutputTokens.
type Usage struct {
	InputTokens      int
	OutputTokens     int
	ReasoningTokens  int
	CacheReadTokens  int
	CacheWriteTokens int
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
	}
}

// IsZero reports whether no token was counted.
func (u Usage) IsZero() bool { return u == Usage{} }

// StopReason is why a response ended, provider-neutral.
type StopReason string

// Stop reasons. A provider's own reason without an equivalent is passed
// through as it is.
const (
	// StopEnd: the model finished its answer.
	StopEnd StopReason = "end"
	// StopToolUse: the model stopped to call tools.
	StopToolUse StopReason = "tool_use"
	// StopLength: the response hit the token limit (max_tokens).
	StopLength StopReason = "length"
	// StopSequence: a stop sequence was generated.
	StopSequence StopReason = "stop_sequence"
	// StopRefusal: the model (or a content filter) refused.
	StopRefusal StopReason = "refusal"
)

// Event is one typed item of a provider stream. EventDone carries the
// response's Stop reason and the Model that answered, when the provider
// said.
type Event struct {
	Kind     EventKind
	Text     string
	ToolCall ToolCall
	Usage    Usage
	Stop     StopReason
	Model    string
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
	// Overflow is set when the provider refused the request for exceeding
	// the model's context window ("prompt is too long"); Kind is then
	// ErrorFatal.
	Overflow bool
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

// IsOverflow reports whether err is a provider's refusal of a request
// that exceeds the model's context window.
func IsOverflow(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Overflow
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
		if g := GuessProvider(s); g != "" && !ok {
			return ModelID{}, fmt.Errorf("model %q is not of the form <provider>/<model>: did you mean %s/%s?", s, g, s)
		}
		return ModelID{}, fmt.Errorf("model %q is not of the form <provider>/<model> (for example demo/echo or openai/gpt-4o)", s)
	}
	return ModelID{Provider: p, Model: m}, nil
}

// GuessProvider names the provider whose models are named like model (a
// name given without its provider, e.g. "gpt-4o" or "claude-sonnet-4-5"),
// or "" when no known provider names its models that way.
func GuessProvider(model string) string {
	m := strings.ToLower(model)
	switch {
	case m == "echo":
		return "demo"
	case strings.HasPrefix(m, "gpt-"), strings.HasPrefix(m, "chatgpt-"),
		len(m) > 1 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9' && (len(m) == 2 || m[2] == '-'):
		return "openai"
	case strings.HasPrefix(m, "claude-"):
		return "anthropic"
	case strings.HasPrefix(m, "gemini-"):
		return "google"
	case strings.HasPrefix(m, "deepseek-"):
		return "deepseek"
	}
	return ""
}

// String returns "<provider>/<model>".
func (m ModelID) String() string { return m.Provider + "/" + m.Model }
