package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/jpcli/jp/ports"
)

// noAnswer is the value of the "(no answer)" option of an optional select.
const noAnswer = "\x00"

type fieldKind int

const (
	fieldText fieldKind = iota
	fieldNumber
	fieldInteger
	fieldBool
	fieldChoice // one of choices: a select
	fieldMulti  // several of choices: comma-separated text
)

// field is one property of an elicitation's requested schema.
type field struct {
	name     string
	kind     fieldKind
	required bool
	s        *jsonschema.Schema
	choices  []ports.Option // Value: the JSON value, Label: its title
}

// formFields turns a requested schema into fields, in the order the
// server wrote the properties (else sorted by name).
func formFields(raw any, message string, orders *orderRecorder) ([]field, error) {
	if raw == nil {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	if order := orders.order(message, names); len(order) == len(names) {
		names = order
	}
	fields := make([]field, 0, len(names))
	for _, n := range names {
		ps := s.Properties[n]
		if ps == nil {
			continue
		}
		f := field{name: n, s: ps, required: slices.Contains(s.Required, n)}
		switch {
		case ps.Type == "boolean":
			f.kind = fieldBool
		case ps.Type == "array":
			f.kind, f.choices = fieldMulti, choicesOf(ps.Items)
			if len(f.choices) == 0 {
				return nil, fmt.Errorf("property %s: an array without enum items", n)
			}
		case len(choicesOf(ps)) > 0:
			f.kind, f.choices = fieldChoice, choicesOf(ps)
		case ps.Type == "number":
			f.kind = fieldNumber
		case ps.Type == "integer":
			f.kind = fieldInteger
		case ps.Type == "string" || ps.Type == "":
			f.kind = fieldText
		default:
			return nil, fmt.Errorf("property %s: unsupported type %q", n, ps.Type)
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// choicesOf returns the values a schema allows: enum (with the legacy
// enumNames as labels), or oneOf/anyOf of consts with titles.
func choicesOf(s *jsonschema.Schema) []ports.Option {
	if s == nil {
		return nil
	}
	var out []ports.Option
	names, _ := s.Extra["enumNames"].([]any)
	for i, v := range s.Enum {
		o := ports.Option{Value: fmt.Sprint(v), Label: fmt.Sprint(v)}
		if i < len(names) {
			o.Label = fmt.Sprint(names[i])
		}
		out = append(out, o)
	}
	for _, alt := range append(slices.Clone(s.OneOf), s.AnyOf...) {
		if alt != nil && alt.Const != nil {
			o := ports.Option{Value: fmt.Sprint(*alt.Const), Label: alt.Title}
			if o.Label == "" {
				o.Label = o.Value
			}
			out = append(out, o)
		}
	}
	return out
}

// label is the property's title, else its name.
func (f field) label() string {
	if f.s.Title != "" {
		return f.s.Title
	}
	return f.name
}

// question is the question that asks f.
func (f field) question() ports.Question {
	msg := f.label()
	if f.s.Description != "" {
		msg += ": " + f.s.Description
	}
	q := ports.Question{Kind: ports.QuestionText, Message: msg}
	var def any
	if len(f.s.Default) > 0 {
		_ = json.Unmarshal(f.s.Default, &def)
	}
	hint := ""
	switch f.kind {
	case fieldBool:
		q.Kind = ports.QuestionConfirm
		q.Default, _ = def.(bool)
		return q
	case fieldChoice:
		q.Kind = ports.QuestionSelect
		if def != nil {
			q.Default = fmt.Sprint(def) // pre-selected
		}
		q.Options = slices.Clone(f.choices)
		if !f.required {
			q.Options = append(q.Options, ports.Option{Value: noAnswer, Label: "(no answer)"})
		}
		return q
	case fieldMulti:
		labels := make([]string, len(f.choices))
		for i, c := range f.choices {
			labels[i] = c.Value
			if c.Label != c.Value {
				labels[i] += " (" + c.Label + ")"
			}
		}
		hint = "comma-separated, from: " + strings.Join(labels, ", ")
		if vs, ok := def.([]any); ok {
			parts := make([]string, len(vs))
			for i, v := range vs {
				parts[i] = fmt.Sprint(v)
			}
			q.Default = strings.Join(parts, ", ")
		}
	case fieldNumber, fieldInteger:
		hint = "a number"
		if f.kind == fieldInteger {
			hint = "a whole number"
		}
		if f.s.Minimum != nil && f.s.Maximum != nil {
			hint += fmt.Sprintf(" from %v to %v", *f.s.Minimum, *f.s.Maximum)
		}
	case fieldText:
		hint = f.s.Format
	}
	if q.Default == nil && def != nil {
		q.Default = fmt.Sprint(def)
	}
	switch {
	case def != nil:
		hint = strings.TrimPrefix(hint+"; empty for the default", "; ")
	case !f.required:
		hint = strings.TrimPrefix(hint+"; empty to skip", "; ")
	}
	if hint != "" {
		q.Message += " (" + hint + ")"
	}
	return q
}

// parse turns an answer into the property's value; set is false for an
// optional property left without an answer. An answer that does not fit
// is an error saying why, for asking again.
func (f field) parse(a ports.Answer) (v any, set bool, err error) {
	switch f.kind {
	case fieldBool:
		return a.Bool, true, nil
	case fieldChoice:
		if a.Text == noAnswer {
			return nil, false, nil
		}
		for _, c := range f.choices {
			if c.Value == a.Text {
				return c.Value, true, nil
			}
		}
		return nil, false, fmt.Errorf("%q is not one of the choices", a.Text)
	}
	text := strings.TrimSpace(a.Text)
	if text == "" {
		if def, ok := f.defaultValue(); ok {
			return def, true, nil // SEP-1034: the server's default stands
		}
		if f.required {
			return nil, false, fmt.Errorf("%s needs an answer", f.label())
		}
		return nil, false, nil
	}
	switch f.kind {
	case fieldMulti:
		v, err = f.parseMulti(text)
	case fieldNumber:
		var n float64
		if n, err = strconv.ParseFloat(text, 64); err != nil {
			return nil, false, fmt.Errorf("%q is not a number", text)
		}
		v = n
	case fieldInteger:
		var n int64
		if n, err = strconv.ParseInt(text, 10, 64); err != nil {
			return nil, false, fmt.Errorf("%q is not a whole number", text)
		}
		v = n
	default:
		v, err = text, checkFormat(f.s.Format, text)
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, f.validate(v, text)
}

func (f field) parseMulti(text string) ([]any, error) {
	var out []any
	for part := range strings.SplitSeq(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		i := slices.IndexFunc(f.choices, func(c ports.Option) bool {
			return strings.EqualFold(c.Value, part) || strings.EqualFold(c.Label, part)
		})
		if i < 0 {
			return nil, fmt.Errorf("%q is not one of the choices", part)
		}
		out = append(out, f.choices[i].Value)
	}
	return out, nil
}

// validate checks v against the property's own schema (ranges, lengths,
// item counts).
func (f field) validate(v any, text string) error {
	rs, err := f.s.Resolve(nil)
	if err != nil {
		return nil // the SDK validated the schema; nothing more to check here
	}
	var inst any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &inst)
	if err := rs.Validate(inst); err != nil {
		if f.s.Minimum != nil || f.s.Maximum != nil {
			if n, ok := inst.(float64); ok && !math.IsNaN(n) {
				return fmt.Errorf("%s is out of range", text)
			}
		}
		return fmt.Errorf("%q does not fit: %v", text, err)
	}
	return nil
}

// checkFormat checks the string formats MCP elicitation allows.
func checkFormat(format, s string) error {
	var err error
	switch format {
	case "email":
		_, err = mail.ParseAddress(s)
	case "uri":
		var u *url.URL
		if u, err = url.Parse(s); err == nil && u.Scheme == "" {
			err = fmt.Errorf("no scheme")
		}
	case "date":
		_, err = time.Parse(time.DateOnly, s)
	case "date-time":
		_, err = time.Parse(time.RFC3339, s)
	}
	if err != nil {
		return fmt.Errorf("%q is not a valid %s", s, format)
	}
	return nil
}

// defaultValue is the property's schema default, if it declares one.
func (f field) defaultValue() (any, bool) {
	if len(f.s.Default) == 0 {
		return nil, false
	}
	var v any
	if err := json.Unmarshal(f.s.Default, &v); err != nil || v == nil {
		return nil, false
	}
	return v, true
}
