package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// EventType is the closed set of event kinds of docs/storage.md.
type EventType int

// Event kinds. The zero value is EventTypeUnknown and never valid on disk.
const (
	EventTypeUnknown EventType = iota
	EventTypeTurnStart
	EventTypeChatRequest
	EventTypeChatResponse
	EventTypeToolCallRequest
	EventTypeToolCallResponse
	EventTypeInquiryRequest
	EventTypeInquiryResponse
	EventTypeTurnEnd
	// EventTypeForeign is an event of a type this jp does not know (the
	// Rust jp's config_delta, or a newer jp's): it is kept verbatim in Raw,
	// its wire name in Kind, and skipped by everything that reads events.
	EventTypeForeign
)

var eventTypeNames = [...]string{
	EventTypeUnknown:          "unknown",
	EventTypeTurnStart:        "turn_start",
	EventTypeChatRequest:      "chat_request",
	EventTypeChatResponse:     "chat_response",
	EventTypeToolCallRequest:  "tool_call_request",
	EventTypeToolCallResponse: "tool_call_response",
	EventTypeInquiryRequest:   "inquiry_request",
	EventTypeInquiryResponse:  "inquiry_response",
	EventTypeTurnEnd:          "turn_end",
	EventTypeForeign:          "foreign",
}

// String returns the wire name of the event type.
func (t EventType) String() string {
	if t < 0 || int(t) >= len(eventTypeNames) {
		return "unknown"
	}
	return eventTypeNames[t]
}

// ParseEventType maps a wire name to an EventType.
func ParseEventType(s string) (EventType, error) {
	for i, n := range eventTypeNames {
		if i != 0 && EventType(i) != EventTypeForeign && n == s {
			return EventType(i), nil
		}
	}
	return EventTypeUnknown, fmt.Errorf("unknown event type %q", s)
}

// MarshalText implements encoding.TextMarshaler.
func (t EventType) MarshalText() ([]byte, error) {
	if t == EventTypeUnknown || t == EventTypeForeign {
		return nil, fmt.Errorf("event type %s has no wire name", t)
	}
	return []byte(t.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *EventType) UnmarshalText(b []byte) error {
	v, err := ParseEventType(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Outcome is how a turn ended, recorded on turn_end.
type Outcome string

// Turn outcomes as stored on turn_end events.
const (
	OutcomeCompleted Outcome = "completed"
	OutcomeStopped   Outcome = "stopped"
	OutcomeAborted   Outcome = "aborted"
	OutcomeError     Outcome = "error"
)

// Valid reports whether o is one of the four outcomes.
func (o Outcome) Valid() bool {
	switch o {
	case OutcomeCompleted, OutcomeStopped, OutcomeAborted, OutcomeError:
		return true
	}
	return false
}

// Author values for chat_request. Plugin authors are "plugin:<name>".
const (
	AuthorUser   = "user"
	AuthorQueued = "queued"
)

// Event is one entry of a conversation's event stream. Only the fields of
// its Type are meaningful; the JSON form carries exactly those fields (see
// docs/storage.md).
type Event struct {
	Type      EventType
	ID        string
	Timestamp time.Time

	// turn_start
	Root string
	// chat_request
	Content     string
	Author      string
	Schema      json.RawMessage
	Attachments []Attachment
	// chat_response (exactly one of Message and Reasoning). Signature is
	// the provider's signature of a reasoning block. The last block of a
	// provider response also carries the Model that answered, its Usage
	// and its StopReason.
	Message    string
	Reasoning  string
	Signature  string
	Model      string
	Usage      *Usage
	StopReason string
	// tool_call_request / tool_call_response
	CallID    string
	Name      string
	Arguments json.RawMessage
	IsError   bool
	// Files are the files a tool_call_response's call changed, relative
	// to the checkout (the built-in write tools).
	Files []string
	// (tool_call_response reuses Content)
	// inquiry_request / inquiry_response
	InquiryID  string
	Question   string
	Answer     json.RawMessage
	AnswerType string
	// turn_end (Model and Usage also: the last model and the turn's total)
	Outcome Outcome

	// Kind is the wire name of an EventTypeForeign event.
	Kind string
	// Delta is the partial configuration object of a config_delta this
	// process made (NewConfigDelta); one read from a file keeps it in Raw.
	Delta json.RawMessage
	// Compaction is the overlay of a foreign event of Kind "compaction"
	// (the Rust jp's form) that this jp reads; nil when it is another kind
	// or does not read as one (then it is only kept).
	Compaction *Compaction
	// Metadata is the event's "metadata" object (the Rust jp records
	// thinking signatures and rendered tool arguments there), its string
	// values decoded. Kept verbatim in Raw.
	Metadata json.RawMessage
	// Legacy is set on an event stored without an event ID (the Rust jp
	// wrote it): its ID is made up from its position when the file is read
	// (see FillIDs) and never written, and the stream replays it without
	// the invariants jp enforces on what it appends itself.
	Legacy bool
	// Raw is the event exactly as it was stored. A rewrite of the file
	// writes it back unchanged (unknown fields, base64 storage fields and
	// timestamp format included; see Stored). Nil for events made by this
	// process.
	Raw json.RawMessage
}

// Attachment is one attachment of a chat_request, stored whole so that
// the conversation can be replayed: text in Content, an image's bytes in
// Data (base64 in JSON).
type Attachment struct {
	// Source is what was attached: a path relative to the launch
	// directory or the checkout, "cmd:<command>", a URL, or "stdin".
	Source    string `json:"source"`
	MediaType string `json:"media_type"`
	Content   string `json:"content,omitempty"`
	Data      []byte `json:"data,omitempty"`
	// Size is the attached content's size in bytes; SHA256 its hex digest.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Local marks content from outside the checkout: a file outside it
	// (or reached through a symbolic link out of it), a command's output,
	// a URL's body, an MCP resource. Its content is kept in the user-local
	// copy of the conversation only; the stored event, and so the checkout
	// copy meant to be committed, holds the reference alone (Source,
	// MediaType, Size, SHA256), without Content or Data.
	Local bool `json:"local,omitempty"`
}

// IsReference reports whether a is a reference whose content is not
// here: a Local attachment read from a copy of the conversation that does
// not keep its content (a clone's checkout copy).
func (a Attachment) IsReference() bool {
	return a.Local && a.Content == "" && len(a.Data) == 0
}

// ReferenceText is what stands for the content of a reference, for the
// model and for jp conversation show: where it came from, its size and
// digest.
func (a Attachment) ReferenceText() string {
	return fmt.Sprintf("%s: not in this copy of the conversation (content from outside the checkout is kept in the user-local copy of whoever attached it): %d bytes, sha256 %s", a.Source, a.Size, a.SHA256)
}

// Usage counts a response's tokens. InputTokens includes the cache reads
// and writes; ReasoningTokens are part of OutputTokens.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
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

// RedactedAnswer is how a secret inquiry answer is stored.
var RedactedAnswer = json.RawMessage(`{"redacted":true}`)

// IsRedacted reports whether an inquiry answer was stored redacted.
func IsRedacted(answer json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(answer), RedactedAnswer)
}

// FillIDs gives each event without an ID (Legacy: the Rust jp stored it
// so) the ID "~<position>". jp's own IDs never start with "~", and the
// made-up IDs are never written: a rewrite writes the stored bytes.
func FillIDs(evs []Event) {
	for i := range evs {
		evs[i].FillID(i)
	}
}

// FillID gives an event without an ID (another version's) the in-memory
// ID of its position i in the conversation, "~i", marked Legacy so that it
// is never written.
func (e *Event) FillID(i int) {
	if e.ID == "" {
		e.ID, e.Legacy = "~"+strconv.Itoa(i), true
	}
}
