package eventcodec

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

// wireEvent is jp's stored form of an event, used for encoding.
type wireEvent struct {
	Type       conversation.EventType    `json:"type"`
	ID         string                    `json:"id"`
	Timestamp  time.Time                 `json:"timestamp"`
	Root       *string                   `json:"root,omitempty"`
	Content    *string                   `json:"content,omitempty"`
	Author     string                    `json:"author,omitempty"`
	Schema     json.RawMessage           `json:"schema,omitempty"`
	Attach     []conversation.Attachment `json:"attachments,omitempty"`
	Message    *string                   `json:"message,omitempty"`
	Reasoning  *string                   `json:"reasoning,omitempty"`
	Signature  string                    `json:"signature,omitempty"`
	Model      string                    `json:"model,omitempty"`
	Usage      *conversation.Usage       `json:"usage,omitempty"`
	StopReason string                    `json:"stop_reason,omitempty"`
	CallID     string                    `json:"call_id,omitempty"`
	Name       string                    `json:"name,omitempty"`
	Arguments  json.RawMessage           `json:"arguments,omitempty"`
	IsError    *bool                     `json:"is_error,omitempty"`
	Files      []string                  `json:"files,omitempty"`
	InquiryID  string                    `json:"inquiry_id,omitempty"`
	Question   *string                   `json:"question,omitempty"`
	Answer     json.RawMessage           `json:"answer,omitempty"`
	AnswerType string                    `json:"answer_type,omitempty"`
	Outcome    conversation.Outcome      `json:"outcome,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// JSON is an event with encoding/json methods, for a message or an output
// that carries events: its JSON form is the stored one (Marshal,
// Unmarshal). conversation.Event itself has none.
type JSON conversation.Event

// MarshalJSON is Marshal.
func (j JSON) MarshalJSON() ([]byte, error) { return Marshal(conversation.Event(j)) }

// UnmarshalJSON is Unmarshal.
func (j *JSON) UnmarshalJSON(b []byte) error { return Unmarshal(b, (*conversation.Event)(j)) }

// Marshal writes exactly the fields of the event's type, in jp's stored
// form (what MarshalJSON of the event in the domain once wrote).
func Marshal(e conversation.Event) ([]byte, error) {
	l, err := line(e)
	if err != nil {
		return nil, err
	}
	return l.Bytes(), nil
}

// line is the event's Marshal encoding, its big values kept apart.
func line(e conversation.Event) (StoredLine, error) {
	w := wireEvent{Type: e.Type, ID: e.ID, Timestamp: e.Timestamp.UTC()}
	switch e.Type {
	case conversation.EventTypeTurnStart:
		w.Root = ptr(e.Root)
	case conversation.EventTypeChatRequest:
		w.Content = ptr(e.Content)
		w.Author = e.Author
		w.Schema = e.Schema
		w.Attach = e.Attachments
	case conversation.EventTypeChatResponse:
		if e.Reasoning != "" && e.Message == "" {
			w.Reasoning = ptr(e.Reasoning)
			w.Signature = e.Signature
		} else {
			w.Message = ptr(e.Message)
		}
		w.Model, w.Usage, w.StopReason = e.Model, e.Usage, e.StopReason
	case conversation.EventTypeToolCallRequest:
		w.CallID, w.Name = e.CallID, e.Name
		w.Arguments = e.Arguments
		if len(w.Arguments) == 0 {
			w.Arguments = json.RawMessage("{}")
		}
	case conversation.EventTypeToolCallResponse:
		w.CallID = e.CallID
		w.Content = ptr(e.Content)
		w.IsError = ptr(e.IsError)
		w.Files = e.Files
	case conversation.EventTypeInquiryRequest:
		w.InquiryID = e.InquiryID
		w.Question = ptr(e.Question)
		w.AnswerType = e.AnswerType
	case conversation.EventTypeInquiryResponse:
		w.InquiryID = e.InquiryID
		w.Answer = e.Answer
		w.AnswerType = e.AnswerType
	case conversation.EventTypeTurnEnd:
		w.Outcome = e.Outcome
		w.Model, w.Usage = e.Model, e.Usage
	case conversation.EventTypeForeign:
		if len(e.Raw) == 0 && e.Kind == conversation.KindConfigDelta {
			b, err := configDeltaJSON(e, conversation.FormatJP)
			return StoredLine{parts: [][]byte{b}}, err
		}
		if len(e.Raw) == 0 && (e.Kind == conversation.KindCompaction || e.Kind == conversation.KindCompactionReset) {
			b, err := compactionJSON(e, conversation.FormatJP)
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

// Unmarshal reads an event in either stored form (see storedEvent):
// jp's, or the Rust jp's (decoded: base64 storage fields, object
// questions, "id" as the call or inquiry ID). An event of a type this jp
// does not know becomes EventTypeForeign. The bytes are kept in Raw.
func Unmarshal(b []byte, e *conversation.Event) error { return decode(e, b, true) }

// decode reads one stored event. Its Raw is a copy of b with copyRaw, else b
// itself (the caller owns b and leaves it as it is).
func decode(e *conversation.Event, b []byte, copyRaw bool) error {
	return decodeWith(e, b, copyRaw, true)
}

// decodeWith is decode, with the fast scanner of the stored form (fast)
// or by json.Unmarshal alone (the reference the tests compare it with).
func decodeWith(e *conversation.Event, b []byte, copyRaw, fast bool) error {
	return decodeScratch(e, b, copyRaw, fast, new(storedEvent))
}

// decodeScratch is decodeWith reading the stored fields into w (cleared
// first): a decoder of many events reuses one, where a fresh one for each
// event would be a heap allocation of its size per event.
func decodeScratch(e *conversation.Event, b []byte, copyRaw, fast bool, w *storedEvent) error {
	if copyRaw {
		// The event's strings and Raw share one copy of b.
		b = append(json.RawMessage(nil), b...)
	}
	*w = storedEvent{}
	if fast && scanStored(b, w) {
		return fromStored(e, w, b)
	}
	*w = storedEvent{}
	if err := json.Unmarshal(b, w); err != nil {
		// An event of a type this jp does not know may have fields of
		// any shape; it only needs its header.
		var h storedHeader
		if json.Unmarshal(b, &h) != nil || h.Type == "" {
			return err
		}
		if _, perr := conversation.ParseEventType(h.Type); perr == nil {
			return err
		}
		*w = storedEvent{Type: h.Type, ID: h.ID, EventID: stringID(h.EventID)}
		_ = w.Timestamp.UnmarshalJSON(h.Timestamp)
	}
	return fromStored(e, w, b)
}

// fromStored makes the event of its stored fields w, decoded from raw.
func fromStored(e *conversation.Event, w *storedEvent, raw json.RawMessage) error {
	if w.Type == "" {
		return fmt.Errorf("event without a type")
	}
	typ, err := conversation.ParseEventType(w.Type)
	if err != nil {
		foreignFromStored(e, w, raw)
		return nil
	}
	*e = conversation.Event{
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
	id := callOrInquiryID(e, w, stringID(w.ID))
	if typ == conversation.EventTypeInquiryRequest {
		if err := decodeQuestion(e, w.Question); err != nil {
			return err
		}
	}
	if len(w.Metadata) > 0 && string(w.Metadata) != "null" {
		e.Metadata = decodeBase64Strings(w.Metadata)
	}
	fromMetadata(e, w)
	e.ID = cmp.Or(w.EventID, id)
	e.Legacy = e.ID == ""
	return nil
}

// foreignFromStored makes an event of a type this jp does not know: kept
// as stored, a compaction read as its overlay when it reads as one.
func foreignFromStored(e *conversation.Event, w *storedEvent, raw json.RawMessage) {
	*e = conversation.Event{Type: conversation.EventTypeForeign, Kind: w.Type, Timestamp: w.Timestamp.Time, Raw: raw}
	if w.Type == conversation.KindCompaction {
		// One that does not read as an overlay is kept, and ignored.
		e.Compaction, _ = parseCompaction(raw)
	}
	e.ID = w.EventID
	if e.ID == "" {
		e.ID = stringID(w.ID)
	}
	e.Legacy = e.ID == ""
}

// callOrInquiryID sets a tool or inquiry event's call or inquiry ID; in
// the Rust jp's shape that is "id" (and a tool event's payload is base64),
// so id, the stored "id", is then no event ID: the one returned is.
func callOrInquiryID(e *conversation.Event, w *storedEvent, id string) string {
	switch e.Type {
	case conversation.EventTypeToolCallRequest, conversation.EventTypeToolCallResponse:
		e.CallID = w.CallID
		if w.CallID == "" {
			e.CallID, id = id, ""
			if e.Type == conversation.EventTypeToolCallRequest {
				e.Arguments = decodeBase64Strings(w.Arguments)
			} else {
				e.Content = decodeBase64String(e.Content)
			}
		}
	case conversation.EventTypeInquiryRequest, conversation.EventTypeInquiryResponse:
		e.InquiryID = w.InquiryID
		if w.InquiryID == "" {
			e.InquiryID, id = id, ""
		}
	}
	return id
}

// fromMetadata reads what jp keeps in an event's metadata for the Rust
// jp's reader: an inquiry's answer type the Rust jp does not know, and a
// turn_start's root and event ID.
func fromMetadata(e *conversation.Event, w *storedEvent) {
	typ := e.Type
	if (typ == conversation.EventTypeInquiryRequest || typ == conversation.EventTypeInquiryResponse) && len(e.Metadata) > 0 {
		var jm struct {
			AnswerType string `json:"answer_type"`
		}
		if json.Unmarshal(e.Metadata, &jm) == nil && jm.AnswerType != "" {
			e.AnswerType = jm.AnswerType
		}
	}
	if typ == conversation.EventTypeTurnStart && w.Root == nil {
		var jm struct {
			EventID string `json:"event_id"`
			Root    string `json:"root"`
		}
		if json.Unmarshal(e.Metadata, &jm) == nil {
			e.Root, w.EventID = jm.Root, cmp.Or(jm.EventID, w.EventID)
		}
	}
}

// decodeQuestion reads an inquiry question: jp's string, or the Rust jp's
// object {text, answer_type: {type}, default}.
func decodeQuestion(e *conversation.Event, q json.RawMessage) error {
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

// EncodeEvents renders events as the JSON array stored in events.json, one
// event per line so that diffs of committed projections stay readable.
func EncodeEvents(evs []conversation.Event) ([]byte, error) {
	return encodeLines(evs, func(e conversation.Event) ([]byte, error) { return json.Marshal(JSON(e)) })
}

// encodeLines renders events as a JSON array, one event per line, each
// encoded by enc: the one layout of events.json, whatever form its events
// are stored in.
func encodeLines(evs []conversation.Event, enc func(conversation.Event) ([]byte, error)) ([]byte, error) {
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
