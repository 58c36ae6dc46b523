package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// RustTimeLayout is the Rust jp's timestamp format (UTC, no zone).
const RustTimeLayout = "2006-01-02 15:04:05.000000"

// ParseTime reads a stored timestamp: RFC 3339, or the Rust jp's
// "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC). rust reports the latter.
func ParseTime(s string) (t time.Time, rust bool, err error) {
	if t, err = time.Parse(time.RFC3339Nano, s); err == nil {
		return t, false, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err2 := time.ParseInLocation(layout, s, time.UTC); err2 == nil {
			return t, true, nil
		}
	}
	return time.Time{}, false, fmt.Errorf("timestamp %q is neither RFC 3339 nor YYYY-MM-DD HH:MM:SS.ffffff", s)
}

// FormatTime writes t in format f.
func FormatTime(t time.Time, f conversation.Format) string {
	if f == conversation.FormatRust {
		return t.UTC().Format(RustTimeLayout)
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// storedTime reads either timestamp form; null or absent is the zero time.
type storedTime struct{ time.Time }

func (t *storedTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	v, _, err := ParseTime(s)
	if err != nil {
		return err
	}
	t.Time = v
	return nil
}

// storedEvent is the union of the fields of both stored forms.
type storedEvent struct {
	Type       string                    `json:"type"`
	ID         json.RawMessage           `json:"id"`
	EventID    string                    `json:"event_id"`
	Timestamp  storedTime                `json:"timestamp"`
	Root       *string                   `json:"root"`
	Content    *string                   `json:"content"`
	Author     string                    `json:"author"`
	Schema     json.RawMessage           `json:"schema"`
	Attach     []conversation.Attachment `json:"attachments"`
	Message    *string                   `json:"message"`
	Reasoning  *string                   `json:"reasoning"`
	Signature  string                    `json:"signature"`
	Model      string                    `json:"model"`
	Usage      *conversation.Usage       `json:"usage"`
	StopReason string                    `json:"stop_reason"`
	CallID     string                    `json:"call_id"`
	Name       string                    `json:"name"`
	Arguments  json.RawMessage           `json:"arguments"`
	IsError    *bool                     `json:"is_error"`
	Files      []string                  `json:"files"`
	InquiryID  string                    `json:"inquiry_id"`
	Question   json.RawMessage           `json:"question"`
	Answer     json.RawMessage           `json:"answer"`
	AnswerType string                    `json:"answer_type"`
	Outcome    conversation.Outcome      `json:"outcome"`
	Metadata   json.RawMessage           `json:"metadata"`
}

// storedHeader is what every stored event has, whatever its type.
type storedHeader struct {
	Type      string          `json:"type"`
	ID        json.RawMessage `json:"id"`
	EventID   json.RawMessage `json:"event_id"`
	Timestamp json.RawMessage `json:"timestamp"`
}

// decodeBase64String undoes the Rust jp's base64 storage of one string;
// a string that is not base64 of UTF-8 text is left as it is (as the Rust
// jp's reader does).
func decodeBase64String(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || !isUTF8(b) {
		return s
	}
	return string(b)
}

func isUTF8(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

// decodeBase64Strings decodes every string value of a JSON tree (object
// keys stay as they are). Invalid JSON is returned unchanged.
func decodeBase64Strings(raw json.RawMessage) json.RawMessage {
	return mapStrings(raw, decodeBase64String)
}

// encodeBase64Strings encodes every string value of a JSON tree.
func encodeBase64Strings(raw json.RawMessage) json.RawMessage {
	return mapStrings(raw, func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) })
}

// mapStrings applies fn to every string value of a JSON tree, keeping
// keys, their order and numbers as they were.
func mapStrings(raw json.RawMessage, fn func(string) string) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	type frame struct {
		object bool
		n      int // tokens written in this container
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return raw
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			out.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			continue
		}
		isKey := false
		if n := len(stack); n > 0 {
			f := &stack[n-1]
			if f.n > 0 {
				if f.object && f.n%2 == 1 {
					out.WriteByte(':')
				} else {
					out.WriteByte(',')
				}
			}
			isKey = f.object && f.n%2 == 0
			f.n++
		}
		switch v := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(v))
			stack = append(stack, frame{object: v == '{'})
			continue
		case string:
			if !isKey {
				v = fn(v)
			}
			b, _ := json.Marshal(v)
			out.Write(b)
		case json.Number:
			out.WriteString(v.String())
		case bool:
			out.WriteString(strconv.FormatBool(v))
		case nil:
			out.WriteString("null")
		}
	}
	return out.Bytes()
}

// compact returns b without insignificant white space, on one line.
func compact(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Stored renders the event as one line of a file in format f. An event read
// from a file is written back exactly as it was stored (Raw, on one line):
// a rewrite never drops what another version wrote. Others are encoded in
// format f.
func Stored(e conversation.Event, f conversation.Format) ([]byte, error) {
	l, err := Line(e, f)
	if err != nil {
		return nil, err
	}
	return l.Bytes(), nil
}

// StoredLine is Stored with a big string field (jp's format) kept apart,
// to be encoded as the line is written (StoredLine.WriteTo): a 20 MB
// message goes to a file without a 20 MB line built first. Every error
// is returned here; writing only encodes.
func Line(e conversation.Event, f conversation.Format) (StoredLine, error) {
	if len(e.Raw) > 0 {
		b, err := compact(e.Raw)
		return StoredLine{parts: [][]byte{b}}, err
	}
	if e.Type == conversation.EventTypeForeign && e.Kind == conversation.KindConfigDelta {
		b, err := configDeltaJSON(e, f)
		return StoredLine{parts: [][]byte{b}}, err
	}
	if f == conversation.FormatRust {
		b, err := rustJSON(e)
		return StoredLine{parts: [][]byte{b}}, err
	}
	// The encoding of MarshalJSON, not json.Marshal(e), which would
	// validate and copy its output again, a second pass over a 20 MB tool
	// result.
	return line(e)
}

// EncodeStoredEvents renders events as events.json in format f: a JSON
// array, one event per line, events read from a file as they were stored.
func EncodeStoredEvents(evs []conversation.Event, f conversation.Format) ([]byte, error) {
	return encodeLines(evs, func(e conversation.Event) ([]byte, error) { return Stored(e, f) })
}

// field is one key of an object written in a fixed order.
type field struct {
	key string
	val any
}

func object(fields ...field) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(64 * len(fields))
	buf.WriteByte('{')
	n := 0
	for _, f := range fields {
		if f.val == nil {
			continue
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		if err := writeString(&buf, f.key); err != nil {
			return nil, err
		}
		buf.WriteByte(':')
		switch v := f.val.(type) {
		case string:
			if err := writeString(&buf, v); err != nil {
				return nil, err
			}
		case int:
			buf.WriteString(strconv.Itoa(v))
		case bool:
			buf.WriteString(strconv.FormatBool(v))
		default:
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.key, err)
			}
			buf.Write(b)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// writeString writes s as a JSON string: directly when it needs no
// escaping, else through encoding/json (which escapes it as it always has).
func writeString(buf *bytes.Buffer, s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, err := json.Marshal(s)
			if err != nil {
				return err
			}
			buf.Write(b)
			return nil
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
	return nil
}

// rustAnswerTypes are the answer types the Rust reader knows.
var rustAnswerTypes = map[string]bool{"boolean": true, "select": true, "text": true}

// rustJSON encodes an event jp made in the Rust jp's form.
func rustJSON(e conversation.Event) ([]byte, error) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	head := []field{
		{"type", e.Type.String()},
		{"timestamp", FormatTime(e.Timestamp, conversation.FormatRust)},
	}
	withID := append(head, field{"event_id", e.ID})
	switch e.Type {
	case conversation.EventTypeTurnStart:
		meta := map[string]string{"event_id": b64(e.ID), "root": b64(e.Root)}
		return object(append(head, field{"metadata", meta})...)
	case conversation.EventTypeChatRequest:
		fs := append(withID, field{"content", e.Content})
		if len(e.Schema) > 0 {
			fs = append(fs, field{"schema", e.Schema})
		}
		if e.Author != "" {
			fs = append(fs, field{"author", e.Author})
		}
		return object(fs...)
	case conversation.EventTypeChatResponse:
		if e.Reasoning != "" && e.Message == "" {
			return object(append(withID, field{"reasoning", e.Reasoning})...)
		}
		return object(append(withID, field{"message", e.Message})...)
	case conversation.EventTypeToolCallRequest:
		args := e.Arguments
		if len(bytes.TrimSpace(args)) == 0 {
			args = json.RawMessage("{}")
		}
		return object(append(withID, field{"id", e.CallID}, field{"name", e.Name},
			field{"arguments", encodeBase64Strings(args)})...)
	case conversation.EventTypeToolCallResponse:
		return object(append(withID, field{"id", e.CallID}, field{"content", b64(e.Content)},
			field{"is_error", e.IsError})...)
	case conversation.EventTypeInquiryRequest:
		at := e.AnswerType
		var meta map[string]string
		if !rustAnswerTypes[at] {
			meta = map[string]string{"answer_type": b64(at)}
			at = "text"
		}
		q := map[string]any{"text": e.Question, "answer_type": map[string]string{"type": at}}
		if at == "select" {
			q["answer_type"] = map[string]any{"type": at, "options": []string{}}
		}
		fs := append(withID, field{"id", e.InquiryID},
			field{"source", map[string]string{"source": "other", "name": "jp"}}, field{"question", q})
		if meta != nil {
			fs = append(fs, field{"metadata", meta})
		}
		return object(fs...)
	case conversation.EventTypeInquiryResponse:
		ans := e.Answer
		if len(bytes.TrimSpace(ans)) == 0 {
			ans = json.RawMessage("null")
		}
		fs := append(withID, field{"id", e.InquiryID}, field{"answer", ans})
		if e.AnswerType != "" {
			fs = append(fs, field{"metadata", map[string]string{"answer_type": b64(e.AnswerType)}})
		}
		return object(fs...)
	case conversation.EventTypeTurnEnd:
		return object(append(withID, field{"outcome", e.Outcome})...)
	case conversation.EventTypeForeign:
		if e.Kind == conversation.KindCompaction || e.Kind == conversation.KindCompactionReset {
			return compactionJSON(e, conversation.FormatRust)
		}
	}
	return nil, fmt.Errorf("encode event %q: type %s cannot be stored", e.ID, e.Type)
}

// ConfigChanges summarises a config_delta event (the Rust jp records a
// conversation's configuration changes so) as the dot paths it sets, in
// order, and "reset" for a reset. ok is false for any other event.
func ConfigChanges(e conversation.Event) (paths []string, ok bool) {
	if !e.IsConfigDelta() {
		return nil, false
	}
	raw := e.Raw
	if len(raw) == 0 {
		raw, _ = object(field{"delta", e.Delta})
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil, true
	}
	if string(obj["op"]) == `"reset"` {
		return []string{"reset"}, true
	}
	tree := obj
	if d, found := obj["delta"]; found {
		tree = nil
		_ = json.Unmarshal(d, &tree)
	} else {
		for _, k := range []string{"type", "timestamp", "op", "unsets", "event_id"} {
			delete(tree, k)
		}
	}
	var walk func(prefix string, m map[string]json.RawMessage)
	walk = func(prefix string, m map[string]json.RawMessage) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			var sub map[string]json.RawMessage
			// assistant.model.id as the Rust { provider, name } is one key.
			if prefix+k == "assistant.model.id" {
				paths = append(paths, prefix+k)
				continue
			}
			if json.Unmarshal(m[k], &sub) == nil && len(sub) > 0 {
				walk(prefix+k+".", sub)
				continue
			}
			paths = append(paths, prefix+k)
		}
	}
	walk("", tree)
	var unsets []string
	if json.Unmarshal(obj["unsets"], &unsets) == nil {
		for _, u := range unsets {
			paths = append(paths, "-"+u)
		}
	}
	return paths, true
}
