package plugin

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

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

// Errors of reading a message (adapters/pluginwire) and of a request's
// Validate. Hosts answer them with an error message and keep running.
var (
	// ErrNotJSON: the line is not a JSON object.
	ErrNotJSON = errors.New("line is not a JSON object")
	// ErrNoType: the object has no "type".
	ErrNoType = errors.New(`message has no "type"`)
	// ErrBadField: a field has the wrong JSON type or is missing.
	ErrBadField = errors.New("bad field")
)

// FieldError turns an encoding/json error into one naming the field, in
// the protocol's words: it wraps ErrBadField or ErrNotJSON.
func FieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Errorf("%w: %s must be %s, not %s", ErrBadField, te.Field, jsonKind(te.Type), te.Value)
		}
		return fmt.Errorf("%w: message must be a JSON object, not %s", ErrNotJSON, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w: %s", ErrNotJSON, SyntaxMessage(err))
	}
	// A text unmarshaler (an enum) refused its value.
	return fmt.Errorf("%w: %v", ErrBadField, err)
}

// SyntaxMessage is err's text, with the byte offset of a JSON syntax
// error.
func SyntaxMessage(err error) string {
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
