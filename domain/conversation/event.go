package conversation

import (
	"bytes"
	"cmp"
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

// wireEvent is jp's stored form of an event, used for encoding.
type wireEvent struct {
	Type       EventType       `json:"type"`
	ID         string          `json:"id"`
	Timestamp  time.Time       `json:"timestamp"`
	Root       *string         `json:"root,omitempty"`
	Content    *string         `json:"content,omitempty"`
	Author     string          `json:"author,omitempty"`
	Schema     json.RawMessage `json:"schema,omitempty"`
	Attach     []Attachment    `json:"attachments,omitempty"`
	Message    *string         `json:"message,omitempty"`
	Reasoning  *string         `json:"reasoning,omitempty"`
	Signature  string          `json:"signature,omitempty"`
	Model      string          `json:"model,omitempty"`
	Usage      *Usage          `json:"usage,omitempty"`
	StopReason string          `json:"stop_reason,omitempty"`
	CallID     string          `json:"call_id,omitempty"`
	Name       string          `json:"name,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	IsError    *bool           `json:"is_error,omitempty"`
	Files      []string        `json:"files,omitempty"`
	InquiryID  string          `json:"inquiry_id,omitempty"`
	Question   *string         `json:"question,omitempty"`
	Answer     json.RawMessage `json:"answer,omitempty"`
	AnswerType string          `json:"answer_type,omitempty"`
	Outcome    Outcome         `json:"outcome,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// MarshalJSON writes exactly the fields of the event's type.
func (e Event) MarshalJSON() ([]byte, error) {
	l, err := e.line()
	if err != nil {
		return nil, err
	}
	return l.Bytes(), nil
}

// line is the event's MarshalJSON encoding, its big values kept apart.
func (e Event) line() (StoredLine, error) {
	w := wireEvent{Type: e.Type, ID: e.ID, Timestamp: e.Timestamp.UTC()}
	switch e.Type {
	case EventTypeTurnStart:
		w.Root = ptr(e.Root)
	case EventTypeChatRequest:
		w.Content = ptr(e.Content)
		w.Author = e.Author
		w.Schema = e.Schema
		w.Attach = e.Attachments
	case EventTypeChatResponse:
		if e.Reasoning != "" && e.Message == "" {
			w.Reasoning = ptr(e.Reasoning)
			w.Signature = e.Signature
		} else {
			w.Message = ptr(e.Message)
		}
		w.Model, w.Usage, w.StopReason = e.Model, e.Usage, e.StopReason
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
		w.Files = e.Files
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
		w.Model, w.Usage = e.Model, e.Usage
	case EventTypeForeign:
		if len(e.Raw) == 0 && e.Kind == KindConfigDelta {
			b, err := e.configDeltaJSON(FormatJP)
			return StoredLine{parts: [][]byte{b}}, err
		}
		if len(e.Raw) == 0 && (e.Kind == KindCompaction || e.Kind == KindCompactionReset) {
			b, err := e.compactionJSON(FormatJP)
			return StoredLine{parts: [][]byte{b}}, err
		}
		if len(e.Raw) == 0 {
			return StoredLine{}, fmt.Errorf("marshal event %q: foreign event without its stored form", e.ID)
		}
		b, err := compact(e.Raw)
		return StoredLine{parts: [][]byte{b}}, err
	default:
		return StoredLine{}, fmt.Errorf("marshal event %q: unknown type", e.ID)
	}
	return splitBig(w)
}

// UnmarshalJSON reads an event in either stored form (see storedEvent):
// jp's, or the Rust jp's (decoded: base64 storage fields, object
// questions, "id" as the call or inquiry ID). An event of a type this jp
// does not know becomes EventTypeForeign. The bytes are kept in Raw.
func (e *Event) UnmarshalJSON(b []byte) error { return e.decode(b, true) }

// decode reads one stored event. Its Raw is a copy of b with copyRaw, else b
// itself (the caller owns b and leaves it as it is).
func (e *Event) decode(b []byte, copyRaw bool) error { return e.decodeWith(b, copyRaw, true) }

// decodeWith is decode, with the fast scanner of the stored form (fast)
// or by json.Unmarshal alone (the reference the tests compare it with).
func (e *Event) decodeWith(b []byte, copyRaw, fast bool) error {
	return e.decodeScratch(b, copyRaw, fast, new(storedEvent))
}

// decodeScratch is decodeWith reading the stored fields into w (cleared
// first): a decoder of many events reuses one, where a fresh one for each
// event would be a heap allocation of its size per event.
func (e *Event) decodeScratch(b []byte, copyRaw, fast bool, w *storedEvent) error {
	if copyRaw {
		// The event's strings and Raw share one copy of b.
		b = append(json.RawMessage(nil), b...)
	}
	*w = storedEvent{}
	if fast && scanStored(b, w) {
		return e.fromStored(w, b)
	}
	*w = storedEvent{}
	if err := json.Unmarshal(b, w); err != nil {
		// An event of a type this jp does not know may have fields of
		// any shape; it only needs its header.
		var h storedHeader
		if json.Unmarshal(b, &h) != nil || h.Type == "" {
			return err
		}
		if _, perr := ParseEventType(h.Type); perr == nil {
			return err
		}
		*w = storedEvent{Type: h.Type, ID: h.ID, EventID: stringID(h.EventID)}
		_ = w.Timestamp.UnmarshalJSON(h.Timestamp)
	}
	return e.fromStored(w, b)
}

// fromStored makes the event of its stored fields w, decoded from raw.
func (e *Event) fromStored(w *storedEvent, raw json.RawMessage) error {
	if w.Type == "" {
		return fmt.Errorf("event without a type")
	}
	typ, err := ParseEventType(w.Type)
	if err != nil {
		*e = Event{Type: EventTypeForeign, Kind: w.Type, Timestamp: w.Timestamp.Time, Raw: raw}
		if w.Type == KindCompaction {
			// One that does not read as an overlay is kept, and ignored.
			e.Compaction, _ = parseCompaction(raw)
		}
		e.ID = w.EventID
		if e.ID == "" {
			e.ID = stringID(w.ID)
		}
		e.Legacy = e.ID == ""
		return nil
	}
	*e = Event{
		Type: typ, Timestamp: w.Timestamp.Time,
		Author: w.Author, Schema: w.Schema, Name: w.Name,
		Arguments: w.Arguments, Answer: w.Answer,
		AnswerType: w.AnswerType, Outcome: w.Outcome, Raw: raw, Files: w.Files,
		Attachments: w.Attach, Signature: w.Signature, Model: w.Model, Usage: w.Usage, StopReason: w.StopReason,
	}
	e.Root = deref(w.Root)
	e.Content = deref(w.Content)
	e.Message = deref(w.Message)
	e.Reasoning = deref(w.Reasoning)
	if w.IsError != nil {
		e.IsError = *w.IsError
	}
	id := stringID(w.ID)
	switch typ {
	case EventTypeToolCallRequest, EventTypeToolCallResponse:
		e.CallID = w.CallID
		if w.CallID == "" {
			// The Rust jp's shape: "id" is the call ID and the payload is
			// base64 encoded.
			e.CallID, id = id, ""
			if typ == EventTypeToolCallRequest {
				e.Arguments = decodeBase64Strings(w.Arguments)
			} else {
				e.Content = decodeBase64String(e.Content)
			}
		}
	case EventTypeInquiryRequest, EventTypeInquiryResponse:
		e.InquiryID = w.InquiryID
		if w.InquiryID == "" {
			e.InquiryID, id = id, ""
		}
	}
	if typ == EventTypeInquiryRequest {
		if err := e.decodeQuestion(w.Question); err != nil {
			return err
		}
	}
	if len(w.Metadata) > 0 && string(w.Metadata) != "null" {
		e.Metadata = decodeBase64Strings(w.Metadata)
	}
	if (typ == EventTypeInquiryRequest || typ == EventTypeInquiryResponse) && len(e.Metadata) > 0 {
		// jp keeps an answer type the Rust jp does not know in metadata.
		var jm struct {
			AnswerType string `json:"answer_type"`
		}
		if json.Unmarshal(e.Metadata, &jm) == nil && jm.AnswerType != "" {
			e.AnswerType = jm.AnswerType
		}
	}
	if typ == EventTypeTurnStart && w.Root == nil {
		// jp in a Rust jp workspace keeps the root and the event ID of a
		// turn_start in its metadata.
		var jm struct {
			EventID string `json:"event_id"`
			Root    string `json:"root"`
		}
		if json.Unmarshal(e.Metadata, &jm) == nil {
			e.Root, w.EventID = jm.Root, cmp.Or(jm.EventID, w.EventID)
		}
	}
	e.ID = cmp.Or(w.EventID, id)
	e.Legacy = e.ID == ""
	return nil
}

// decodeQuestion reads an inquiry question: jp's string, or the Rust jp's
// object {text, answer_type: {type}, default}.
func (e *Event) decodeQuestion(q json.RawMessage) error {
	q = bytes.TrimSpace(q)
	if len(q) == 0 || string(q) == "null" {
		return nil
	}
	if q[0] == '"' {
		return json.Unmarshal(q, &e.Question)
	}
	var obj struct {
		Text       string `json:"text"`
		AnswerType struct {
			Type string `json:"type"`
		} `json:"answer_type"`
	}
	if err := json.Unmarshal(q, &obj); err != nil {
		return fmt.Errorf("inquiry question: %w", err)
	}
	e.Question = obj.Text
	if e.AnswerType == "" {
		e.AnswerType = obj.AnswerType.Type
	}
	return nil
}

// stringID reads an "id" value that should be a string; anything else
// (the Rust jp never writes one) reads as no ID.
func stringID(b json.RawMessage) string {
	if s, ok := scanString(b); ok {
		return s // shares b, as the event's other strings do
	}
	var s string
	if len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil {
		return s
	}
	return ""
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

// EncodeEvents renders events as the JSON array stored in events.json, one
// event per line so that diffs of committed projections stay readable.
func EncodeEvents(evs []Event) ([]byte, error) {
	return encodeLines(evs, func(e Event) ([]byte, error) { return json.Marshal(e) })
}

// encodeLines renders events as a JSON array, one event per line, each
// encoded by enc: the one layout of events.json, whatever form its events
// are stored in.
func encodeLines(evs []Event, enc func(Event) ([]byte, error)) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("[")
	for i, e := range evs {
		b, err := enc(e)
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
