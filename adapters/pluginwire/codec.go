package pluginwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	// The protocol's model (Header, Message, Request, the errors), named
	// here as in domain/plugin, where this codec lived, so that git sees
	// this file as moved; domain/plugin exports no Encode*/Decode* name to
	// clash with (domain/arch_test.go).
	//lint:ignore ST1001 see above
	. "github.com/jpcli/jp/domain/plugin"
)

// Encode renders m as one JSON line, without the newline: the "type"
// discriminator first, then m's fields.
func Encode(m Message) ([]byte, error) {
	if b, ok := appendFast(make([]byte, 0, 128), m); ok {
		return b, nil
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
			return h, FieldError(err)
		}
		return Header{}, fmt.Errorf("%w: %s", ErrNotJSON, SyntaxMessage(err))
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
		return v, FieldError(err)
	}
	if err := PT(&v).Validate(); err != nil {
		return v, err
	}
	return v, nil
}
