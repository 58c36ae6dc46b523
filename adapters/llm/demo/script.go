package demo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jpcli/jp/domain/llm"
)

// ScriptError says what is wrong with a demo script and where.
type ScriptError struct {
	Path   string
	Line   int // 1-based
	Column int // 1-based, in characters
	Msg    string
}

// Error formats the error as "demo script PATH:LINE:COL: message".
func (e *ScriptError) Error() string {
	return fmt.Sprintf("demo script %s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
}

// script is a parsed demo script (format: docs/demo-model.md).
type script struct {
	path      string
	responses [][]scriptEvent
}

type eventKind int

const (
	eventPause eventKind = iota // sleep_ms alone
	eventText
	eventReasoning
	eventToolCall
	eventUsage
	eventError
)

// scriptEvent is one entry of a response's "events" array.
type scriptEvent struct {
	kind    eventKind
	text    string // text, reasoning, or the error message
	name    string // tool name
	args    json.RawMessage
	errKind llm.ErrorKind
	usage   llm.Usage
	repeat  int
	sleep   time.Duration
}

// Event keys: one kind key, plus modifiers.
var (
	kindKeys     = []string{"text", "reasoning", "tool_call", "usage", "error"}
	modifierKeys = []string{"repeat", "sleep_ms", "message"}
)

// parser walks the script with a token decoder so that every error can
// name a position.
type parser struct {
	path string
	data []byte
	dec  *json.Decoder
}

// parseScript parses and validates a script.
func parseScript(path string, data []byte) (*script, error) {
	p := &parser{path: path, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	s := &script{path: path}
	if err := p.object("the script must be a JSON object with a \"responses\" array", func(key string, at int64) error {
		if key != "responses" {
			return p.errAt(at, "unknown key %q (the script has one key, \"responses\")", key)
		}
		return p.array("\"responses\" must be an array of response objects", func() error {
			events, err := p.response()
			s.responses = append(s.responses, events)
			return err
		})
	}); err != nil {
		return nil, err
	}
	if at := p.pos(); at < int64(len(data)) {
		return nil, p.errAt(at, "unexpected data after the script object")
	}
	return s, nil
}

// response parses {"events": [...]}.
func (p *parser) response() ([]scriptEvent, error) {
	var events []scriptEvent
	err := p.object("a response must be an object with an \"events\" array", func(key string, at int64) error {
		if key != "events" {
			return p.errAt(at, "unknown response key %q (a response has one key, \"events\")", key)
		}
		return p.array("\"events\" must be an array of event objects", func() error {
			at := p.pos()
			var raw json.RawMessage
			if err := p.dec.Decode(&raw); err != nil {
				return p.syntax(err)
			}
			ev, err := p.event(raw, at)
			events = append(events, ev)
			return err
		})
	})
	return events, err
}

// object reads {"key": value, ...}; field must consume each value.
func (p *parser) object(what string, field func(key string, at int64) error) error {
	if err := p.delim('{', what); err != nil {
		return err
	}
	for p.dec.More() {
		at := p.pos()
		tok, err := p.dec.Token()
		if err != nil {
			return p.syntax(err)
		}
		key, _ := tok.(string)
		if err := field(key, at); err != nil {
			return err
		}
	}
	_, err := p.dec.Token() // '}'
	return p.syntax(err)
}

// array reads [item, ...]; item must consume one value.
func (p *parser) array(what string, item func() error) error {
	if err := p.delim('[', what); err != nil {
		return err
	}
	for p.dec.More() {
		if err := item(); err != nil {
			return err
		}
	}
	_, err := p.dec.Token() // ']'
	return p.syntax(err)
}

func (p *parser) delim(want json.Delim, what string) error {
	at := p.pos()
	tok, err := p.dec.Token()
	if err != nil {
		return p.syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return p.errAt(at, "%s", what)
	}
	return nil
}

// event validates one event object that starts at offset at.
func (p *parser) event(raw json.RawMessage, at int64) (scriptEvent, error) {
	ev := scriptEvent{repeat: 1}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return ev, p.errAt(at, "an event must be an object such as {\"text\": \"hello\"}")
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var kinds []string
	for _, k := range keys {
		switch {
		case slices.Contains(kindKeys, k):
			kinds = append(kinds, k)
		case !slices.Contains(modifierKeys, k):
			return ev, p.errAt(p.keyAt(raw, at, k), "unknown event key %q (known keys: %s)", k,
				strings.Join(append(slices.Clone(kindKeys), modifierKeys...), ", "))
		}
	}
	if len(kinds) > 1 {
		return ev, p.errAt(at, "an event has one of %s; this one has %s", strings.Join(kindKeys, ", "), strings.Join(kinds, " and "))
	}
	field := func(key string, into any, what string) error {
		v, ok := fields[key]
		if !ok {
			return nil
		}
		if err := strictUnmarshal(v, into); err != nil {
			if _, unknown, ok := strings.Cut(err.Error(), "unknown field "); ok {
				return p.errAt(p.keyAt(raw, at, key), "%q must be %s; unknown key %s", key, what, unknown)
			}
			return p.errAt(p.keyAt(raw, at, key), "%q must be %s", key, what)
		}
		return nil
	}
	var sleepMS int64
	if err := field("repeat", &ev.repeat, "a whole number of times, 0 or more"); err != nil {
		return ev, err
	}
	if err := field("sleep_ms", &sleepMS, "a whole number of milliseconds, 0 or more"); err != nil {
		return ev, err
	}
	if ev.repeat < 0 {
		return ev, p.errAt(p.keyAt(raw, at, "repeat"), "\"repeat\" must be 0 or more")
	}
	if sleepMS < 0 {
		return ev, p.errAt(p.keyAt(raw, at, "sleep_ms"), "\"sleep_ms\" must be 0 or more")
	}
	ev.sleep = time.Duration(sleepMS) * time.Millisecond
	if _, ok := fields["message"]; ok && (len(kinds) == 0 || kinds[0] != "error") {
		return ev, p.errAt(p.keyAt(raw, at, "message"), "\"message\" belongs to an error event")
	}
	if len(kinds) == 0 {
		if _, ok := fields["sleep_ms"]; !ok {
			return ev, p.errAt(at, "an event needs one of %s, or sleep_ms alone for a pause", strings.Join(kindKeys, ", "))
		}
		ev.kind = eventPause
		return ev, nil
	}
	return ev, p.kind(&ev, kinds[0], fields, raw, at, field)
}

// kind fills the event from its kind key.
func (p *parser) kind(ev *scriptEvent, key string, fields map[string]json.RawMessage, raw json.RawMessage, at int64,
	field func(string, any, string) error) error {
	switch key {
	case "text":
		ev.kind = eventText
		return field("text", &ev.text, "a string")
	case "reasoning":
		ev.kind = eventReasoning
		return field("reasoning", &ev.text, "a string")
	case "usage":
		ev.kind = eventUsage
		var u struct {
			In  int `json:"input_tokens"`
			Out int `json:"output_tokens"`
		}
		if err := field("usage", &u, `an object {"input_tokens": N, "output_tokens": N}`); err != nil {
			return err
		}
		ev.usage = llm.Usage{InputTokens: u.In, OutputTokens: u.Out}
	case "tool_call":
		ev.kind = eventToolCall
		var tc struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		const want = `an object {"name": "tool", "arguments": {...}}`
		if err := field("tool_call", &tc, want); err != nil {
			return err
		}
		if tc.Name == "" {
			return p.errAt(p.keyAt(raw, at, "tool_call"), "\"tool_call\" needs a \"name\"")
		}
		ev.name = tc.Name
		ev.args = json.RawMessage("{}")
		if len(tc.Arguments) > 0 {
			var obj map[string]json.RawMessage
			var buf bytes.Buffer
			if json.Unmarshal(tc.Arguments, &obj) != nil || obj == nil || json.Compact(&buf, tc.Arguments) != nil {
				return p.errAt(p.keyAt(raw, at, "arguments"), "\"arguments\" of a tool_call must be a JSON object")
			}
			ev.args = buf.Bytes()
		}
	case "error":
		ev.kind = eventError
		var kind string
		if err := field("error", &kind, `"transient", "fatal" or "auth"`); err != nil {
			return err
		}
		switch kind {
		case "transient":
			ev.errKind = llm.ErrorTransient
		case "fatal":
			ev.errKind = llm.ErrorFatal
		case "auth":
			ev.errKind = llm.ErrorAuth
		default:
			return p.errAt(p.keyAt(raw, at, "error"), "\"error\" must be \"transient\", \"fatal\" or \"auth\", not %q", kind)
		}
		if err := field("message", &ev.text, "a string"); err != nil {
			return err
		}
		if ev.text == "" {
			ev.text = "scripted " + kind + " error"
		}
	}
	return nil
}

// strictUnmarshal decodes v into into, refusing unknown object keys.
func strictUnmarshal(v json.RawMessage, into any) error {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

// keyAt finds where "key" appears inside the event at offset at, falling
// back to the event's start.
func (p *parser) keyAt(raw json.RawMessage, at int64, key string) int64 {
	if i := bytes.Index(raw, []byte(`"`+key+`"`)); i >= 0 {
		return at + int64(i)
	}
	return at
}

// pos is the offset of the next token: the decoder's offset past any
// whitespace and separators.
func (p *parser) pos() int64 {
	off := p.dec.InputOffset()
	for off < int64(len(p.data)) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// syntax turns a decoder error into a ScriptError (nil stays nil).
func (p *parser) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		// The decoder's offsets are relative to its buffer; a plain
		// Unmarshal of the whole file finds the same first error with an
		// absolute offset (the byte at Offset-1 is the culprit).
		var v any
		if errors.As(json.Unmarshal(p.data, &v), &se) {
			return p.errAt(max(se.Offset-1, 0), "%s", se.Error())
		}
		return p.errAt(p.pos(), "%s", err.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.errAt(int64(len(p.data)), "unexpected end of file (an unclosed { or [ ?)")
	}
	return p.errAt(p.pos(), "%s", err.Error())
}

// errAt builds a ScriptError at a byte offset.
func (p *parser) errAt(off int64, format string, args ...any) error {
	off = min(max(off, 0), int64(len(p.data)))
	before := p.data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return &ScriptError{Path: p.path, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}
