package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// storedKeys are the keys of storedEvent, in the order of its fields.
var storedKeys = [...]string{
	"type", "id", "event_id", "timestamp", "root", "content", "author", "schema",
	"attachments", "message", "reasoning", "signature", "model", "usage",
	"stop_reason", "call_id", "name", "arguments", "is_error", "files",
	"inquiry_id", "question", "answer", "answer_type", "outcome", "metadata",
}

// scanStored is the fast path of decoding one stored event: a scanner of
// the one object shape jp and the Rust jp write, filling w as
// json.Unmarshal(b, w) would. Strings without escapes are not copied: they
// share b, which the caller owns and never changes (b is also the event's
// Raw). It reports false for anything it does not handle exactly as
// encoding/json does (null values, a key repeated or in another case, a
// syntax error, invalid UTF-8, escapes in a key); the caller then decodes
// with json.Unmarshal, which also gives the errors.
//
// A conversation of 100,000 events is 10 MB: json.Unmarshal's reflection
// costs about 8 µs an event and allocates every string; this takes a
// fraction of that.
func scanStored(b []byte, w *storedEvent) bool { return scanStoredMode(b, w, false) }

// scanStoredMode is scanStored; with light, the big values (bigKeys) are
// checked to be valid JSON but not decoded: their fields stay empty.
func scanStoredMode(b []byte, w *storedEvent, light bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	var seen uint32
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		kend, ok := stringEnd(b, i)
		if !ok {
			return false
		}
		key := b[i+1 : kend-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vend, ok := valueEnd(b, i)
		if !ok {
			return false
		}
		val := b[i:vend]
		if string(val) == "null" {
			return false
		}
		k := keyIndex(key)
		switch {
		case k < 0:
			// A field jp does not know: skipped, as json.Unmarshal does,
			// unless it would match a known one in another case.
			if !isASCII(key) {
				return false
			}
			for _, name := range storedKeys {
				if strings.EqualFold(name, string(key)) {
					return false
				}
			}
			if !json.Valid(val) {
				return false
			}
		case seen&(1<<k) != 0:
			return false
		case light && bigKeys&(1<<k) != 0:
			seen |= 1 << k
			if !validSkipped(k, val) {
				return false
			}
		default:
			seen |= 1 << k
			if !w.setField(k, val) {
				return false
			}
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

func keyIndex(key []byte) int {
	for i, name := range storedKeys {
		if name == string(key) {
			return i
		}
	}
	return -1
}

// setField sets the field of key index k from the JSON value v (not null).
func (w *storedEvent) setField(k int, v []byte) bool {
	key := storedKeys[k]
	if dst := w.stringField(key); dst != nil {
		s, ok := scanString(v)
		*dst = s
		return ok
	}
	if dst := w.stringPtrField(key); dst != nil {
		s, ok := scanString(v)
		*dst = &s
		return ok
	}
	if dst := w.rawField(key); dst != nil {
		if !json.Valid(v) {
			return false
		}
		*dst = v
		return true
	}
	return w.setOther(key, v)
}

// stringField is the string field of key, nil when it is of another kind.
func (w *storedEvent) stringField(key string) *string {
	switch key {
	case "type":
		return &w.Type
	case "event_id":
		return &w.EventID
	case "author":
		return &w.Author
	case "signature":
		return &w.Signature
	case "model":
		return &w.Model
	case "stop_reason":
		return &w.StopReason
	case "call_id":
		return &w.CallID
	case "name":
		return &w.Name
	case "inquiry_id":
		return &w.InquiryID
	case "answer_type":
		return &w.AnswerType
	}
	return nil
}

// stringPtrField is the *string field of key (present, maybe empty), nil
// when it is of another kind.
func (w *storedEvent) stringPtrField(key string) **string {
	switch key {
	case "root":
		return &w.Root
	case "content":
		return &w.Content
	case "message":
		return &w.Message
	case "reasoning":
		return &w.Reasoning
	}
	return nil
}

// rawField is the raw JSON field of key, nil when it is of another kind.
func (w *storedEvent) rawField(key string) *json.RawMessage {
	switch key {
	case "id":
		return &w.ID
	case "schema":
		return &w.Schema
	case "arguments":
		return &w.Arguments
	case "question":
		return &w.Question
	case "answer":
		return &w.Answer
	case "metadata":
		return &w.Metadata
	}
	return nil
}

// setOther sets the fields of their own kinds: the timestamp, the
// decoded lists and objects, is_error and outcome.
func (w *storedEvent) setOther(key string, v []byte) bool {
	switch key {
	case "timestamp":
		s, ok := scanString(v)
		if !ok {
			return false
		}
		t, _, err := ParseTime(s)
		w.Timestamp.Time = t
		return err == nil
	case "attachments":
		return json.Unmarshal(v, &w.Attach) == nil
	case "usage":
		return json.Unmarshal(v, &w.Usage) == nil
	case "files":
		return json.Unmarshal(v, &w.Files) == nil
	case "is_error":
		switch string(v) {
		case "true", "false":
			t := string(v) == "true"
			w.IsError = &t
			return true
		}
		return false
	case "outcome":
		s, ok := scanString(v)
		w.Outcome = conversation.Outcome(s)
		return ok
	}
	return false
}

// scanString decodes the JSON string v. One without escapes, control
// bytes or invalid UTF-8 is b's own bytes; the others are decoded by
// json.Unmarshal (escapes, and invalid UTF-8 replaced as it does).
func scanString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	ascii := true
	for _, c := range body {
		if c < 0x20 {
			return "", false
		}
		if c == '\\' || c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii && (bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body)) {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	}
	if len(body) == 0 {
		return "", true
	}
	return unsafe.String(&body[0], len(body)), true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
