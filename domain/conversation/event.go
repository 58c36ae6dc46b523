package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// EventType is the closed set of event kinds of SPEC section 3.
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
		if i != 0 && n == s {
			return EventType(i), nil
		}
	}
	return EventTypeUnknown, fmt.Errorf("unknown event type %q", s)
}

// MarshalText implements encoding.TextMarshaler.
func (t EventType) MarshalText() ([]byte, error) {
	if t == EventTypeUnknown {
		return nil, fmt.Errorf("event type is unset")
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
// SPEC section 3 and docs/storage.md).
type Event struct {
	Type      EventType
	ID        string
	Timestamp time.Time

	// turn_start
	Root string
	// chat_request
	Content string
	Author  string
	Schema  json.RawMessage
	// chat_response (exactly one of Message and Reasoning)
	Message   string
	Reasoning string
	// tool_call_request / tool_call_response
	CallID    string
	Name      string
	Arguments json.RawMessage
	IsError   bool
	// (tool_call_response reuses Content)
	// inquiry_request / inquiry_response
	InquiryID  string
	Question   string
	Answer     json.RawMessage
	AnswerType string
	// turn_end
	Outcome Outcome
}

// wireEvent is the union of all fields, used for decoding.
type wireEvent struct {
	Type       EventType       `json:"type"`
	ID         string          `json:"id"`
	Timestamp  time.Time       `json:"timestamp"`
	Root       *string         `json:"root,omitempty"`
	Content    *string         `json:"content,omitempty"`
	Author     string          `json:"author,omitempty"`
	Schema     json.RawMessage `json:"schema,omitempty"`
	Message    *string         `json:"message,omitempty"`
	Reasoning  *string         `json:"reasoning,omitempty"`
	CallID     string          `json:"call_id,omitempty"`
	Name       string          `json:"name,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	IsError    *bool           `json:"is_error,omitempty"`
	InquiryID  string          `json:"inquiry_id,omitempty"`
	Question   *string         `json:"question,omitempty"`
	Answer     json.RawMessage `json:"answer,omitempty"`
	AnswerType string          `json:"answer_type,omitempty"`
	Outcome    Outcome         `json:"outcome,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// MarshalJSON writes exactly the fields of the event's type.
func (e Event) MarshalJSON() ([]byte, error) {
	w := wireEvent{Type: e.Type, ID: e.ID, Timestamp: e.Timestamp.UTC()}
	switch e.Type {
	case EventTypeTurnStart:
		w.Root = ptr(e.Root)
	case EventTypeChatRequest:
		w.Content = ptr(e.Content)
		w.Author = e.Author
		w.Schema = e.Schema
	case EventTypeChatResponse:
		if e.Reasoning != "" && e.Message == "" {
			w.Reasoning = ptr(e.Reasoning)
		} else {
			w.Message = ptr(e.Message)
		}
	case EventTypeToolCallRequest:
		w.CallID, w.Name = e.CallID, e.Name
		w.Arguments = e.Arguments
		if len(w.Arguments) == 0 {
			w.Arguments = json.RawMessage("{}")
		}
	case EventTypeToolCallResponse:
		w.CallID = e.CallID
		w.Content = ptr(e.Content)
		w.IsError = ptr(e.IsError)
	case EventTypeInquiryRequest:
		w.InquiryID = e.InquiryID
		w.Question = ptr(e.Question)
		w.AnswerType = e.AnswerType
	case EventTypeInquiryResponse:
		w.InquiryID = e.InquiryID
		w.Answer = e.Answer
		w.AnswerType = e.AnswerType
	case EventTypeTurnEnd:
		w.Outcome = e.Outcome
	default:
		return nil, fmt.Errorf("marshal event %q: unknown type", e.ID)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads an event and checks that its type is known.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wireEvent
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Type == EventTypeUnknown {
		return fmt.Errorf("event without a type")
	}
	*e = Event{
		Type: w.Type, ID: w.ID, Timestamp: w.Timestamp,
		Author: w.Author, Schema: w.Schema, CallID: w.CallID, Name: w.Name,
		Arguments: w.Arguments, InquiryID: w.InquiryID, Answer: w.Answer,
		AnswerType: w.AnswerType, Outcome: w.Outcome,
	}
	e.Root = deref(w.Root)
	e.Content = deref(w.Content)
	e.Message = deref(w.Message)
	e.Reasoning = deref(w.Reasoning)
	e.Question = deref(w.Question)
	if w.IsError != nil {
		e.IsError = *w.IsError
	}
	return nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// RedactedAnswer is how a secret inquiry answer is stored.
var RedactedAnswer = json.RawMessage(`{"redacted":true}`)

// IsRedacted reports whether an inquiry answer was stored redacted.
func IsRedacted(answer json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(answer), RedactedAnswer)
}

// DecodeEvents parses the JSON array form of events.json.
func DecodeEvents(b []byte) ([]Event, error) {
	var evs []Event
	if err := json.Unmarshal(b, &evs); err != nil {
		return nil, err
	}
	return evs, nil
}

// EncodeEvents renders events as the JSON array stored in events.json, one
// event per line so that diffs of committed projections stay readable.
func EncodeEvents(evs []Event) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("[")
	for i, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
		buf.Write(b)
	}
	if len(evs) > 0 {
		buf.WriteString("\n")
	}
	buf.WriteString("]\n")
	return buf.Bytes(), nil
}
