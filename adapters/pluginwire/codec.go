package plugin

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"

	"github.com/jpcli/jp/domain/workspace"
)

// Message is one protocol message. MessageType is its "type"
// discriminator; the message's JSON fields are the struct's.
type Message interface {
	MessageType() string
}

// Request is a plugin-to-host message that names its own validity rules:
// Validate reports a missing or malformed field.
type Request interface {
	Message
	Validate() error
}

// Header is what every plugin-to-host message carries besides its own
// fields: the type, the optional correlation ID, and the optional
// WorkspaceRef of a multi-scope plugin (docs/plugins.md).
type Header struct {
	Type      string         `json:"type"`
	ID        string         `json:"id,omitempty"`
	Workspace *workspace.Ref `json:"workspace,omitempty"`
}

// Errors of DecodeHeader and Decode. Hosts answer them with an error
// message and keep running.
var (
	// ErrNotJSON: the line is not a JSON object.
	ErrNotJSON = errors.New("line is not a JSON object")
	// ErrNoType: the object has no "type".
	ErrNoType = errors.New(`message has no "type"`)
	// ErrBadField: a field has the wrong JSON type or is missing.
	ErrBadField = errors.New("bad field")
)

// Encode renders m as one JSON line, without the newline: the "type"
// discriminator first, then m's fields.
func Encode(m Message) ([]byte, error) {
	if a, ok := m.(appender); ok {
		if b, ok := a.appendJSON(make([]byte, 0, 128)); ok {
			return b, nil
		}
	}
	body, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", m.MessageType(), err)
	}
	return withType(m.MessageType(), body), nil
}

// withType splices "type" into the JSON object body.
func withType(typ string, body []byte) []byte {
	out := make([]byte, 0, len(body)+len(typ)+12)
	out = append(out, `{"type":"`...)
	out = append(out, typ...)
	out = append(out, '"')
	if len(body) > 2 {
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out
}

// DecodeHeader reads the header of a line. A line that is not a JSON
// object wraps ErrNotJSON; one without a type wraps ErrNoType; a header
// field of the wrong type wraps ErrBadField. What it could read is
// returned even with an error, so that an answer can echo the id.
func DecodeHeader(line []byte) (Header, error) {
	if h, ok := fastHeader(line); ok {
		return h, nil
	}
	if !utf8.Valid(line) {
		return Header{}, fmt.Errorf("%w: it is not valid UTF-8", ErrNotJSON)
	}
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			h = bestEffortHeader(line)
			return h, fieldError(err)
		}
		return Header{}, fmt.Errorf("%w: %s", ErrNotJSON, syntaxMessage(err))
	}
	if h.Type == "" {
		return h, ErrNoType
	}
	return h, nil
}

// fastHeader reads the header of a line in the form Encode writes (type
// first, then the id, both plain strings) without a full parse. It gives
// up (ok false) on anything else: lines that mention a workspace, and
// lines with an "id" key that is not right after the type.
// The caller decodes the whole line afterwards, which checks that it is
// JSON at all. (A message repeating "type" or "id" is not supported: this
// reading keeps the first, encoding/json the last.)
func fastHeader(line []byte) (h Header, ok bool) {
	const typePrefix, idPrefix = `{"type":"`, `,"id":"`
	if !bytes.HasPrefix(line, []byte(typePrefix)) || bytes.Contains(line, []byte(`"workspace"`)) {
		return Header{}, false
	}
	rest := line[len(typePrefix):]
	typ, rest, ok := plainString(rest)
	if !ok || typ == "" {
		return Header{}, false
	}
	h.Type = typ
	if bytes.HasPrefix(rest, []byte(`,"id":`)) && !bytes.HasPrefix(rest, []byte(idPrefix)) {
		return Header{}, false // an id that is not a plain string
	}
	if bytes.HasPrefix(rest, []byte(idPrefix)) {
		if h.ID, rest, ok = plainString(rest[len(idPrefix):]); !ok {
			return Header{}, false
		}
	} else if bytes.Contains(rest, []byte(`"id"`)) {
		return Header{}, false // an id further on: the full parse finds it
	}
	if len(rest) == 0 || (rest[0] != ',' && rest[0] != '}') {
		return Header{}, false
	}
	return h, true
}

// plainString reads a JSON string without escapes up to its closing
// quote: printable ASCII only.
func plainString(b []byte) (string, []byte, bool) {
	for i, c := range b {
		switch {
		case c == '"':
			return string(b[:i]), b[i+1:], true
		case c < 0x20 || c == '\\' || c >= 0x7f:
			return "", nil, false
		}
	}
	return "", nil, false
}

// bestEffortHeader reads type and id when another header field is bad.
func bestEffortHeader(line []byte) Header {
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(line, &raw)
	var h Header
	_ = json.Unmarshal(raw["type"], &h.Type)
	_ = json.Unmarshal(raw["id"], &h.ID)
	return h
}

// Decode reads a whole line into a request of type T and validates it.
// Field errors wrap ErrBadField and name the field.
func Decode[T any, PT interface {
	*T
	Request
}](line []byte) (T, error) {
	var v T
	if err := json.Unmarshal(line, &v); err != nil {
		return v, fieldError(err)
	}
	if err := PT(&v).Validate(); err != nil {
		return v, err
	}
	return v, nil
}

// fieldError turns a json error into one naming the field.
func fieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Errorf("%w: %s must be %s, not %s", ErrBadField, te.Field, jsonKind(te.Type), te.Value)
		}
		return fmt.Errorf("%w: message must be a JSON object, not %s", ErrNotJSON, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w: %s", ErrNotJSON, syntaxMessage(err))
	}
	// A text unmarshaler (an enum) refused its value.
	return fmt.Errorf("%w: %v", ErrBadField, err)
}

func syntaxMessage(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	return err.Error()
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// jsonKind names what a Go type reads from, the way a JSON author thinks
// of it.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "a string"
	}
	k := t.Kind().String()
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "a " + k
}

// missing is the error for a required field that is absent or empty.
func missing(field string) error {
	return fmt.Errorf("%w: %s is required", ErrBadField, field)
}
