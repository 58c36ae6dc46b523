// Package schemadsl reads the schema shorthand of jp query --schema: a
// compact list of fields ("summary, age int, ?tags [string]") that becomes
// a JSON Schema object, as the Rust jp defines it. Input starting with '{'
// is JSON and passes through.
//
// Fields are separated by commas or newlines; each is
//
//	[?] name [type] [: description]
//
// '?' makes the field optional (left out of "required"); the type defaults
// to string. Types: str/string, int/integer, float/number, bool/boolean,
// any, [T] (an array; [] is [any]), { fields } (an object), T|U (a union),
// and literals ("text", 42, -1.5, true, false, null). A union of literals
// becomes an enum. A description runs to the next comma or newline, or is
// a quoted string ("a, b"), or a heredoc ("""...""" over several lines).
// A backslash ending a line joins it to the next.
package schemadsl

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Parse turns the shorthand (or a JSON object) into a JSON Schema.
func Parse(input string) (json.RawMessage, error) {
	input = strings.TrimSpace(input)
	if input == "" {
		return nil, fmt.Errorf("schema definition is empty")
	}
	if strings.HasPrefix(input, "{") {
		var v any
		if err := json.Unmarshal([]byte(input), &v); err != nil {
			return nil, fmt.Errorf("invalid JSON schema: %v", err)
		}
		return json.RawMessage(input), nil
	}
	p := &parser{in: input}
	fields, err := p.fieldList(0)
	if err != nil {
		return nil, err
	}
	p.skipSeparators()
	if !p.eof() {
		return nil, fmt.Errorf("expected end of input, found '%c' at position %d", p.peek(), p.pos)
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("schema definition is empty")
	}
	return json.Marshal(fieldsJSON(fields))
}

type field struct {
	name        string
	required    bool
	typ         schemaType
	description string
}

type kind int

const (
	kString kind = iota
	kInteger
	kNumber
	kBoolean
	kAny
	kLiteral
	kArray
	kObject
	kUnion
)

type schemaType struct {
	kind    kind
	literal any          // kLiteral
	items   *schemaType  // kArray
	fields  []field      // kObject
	union   []schemaType // kUnion
}

func (t schemaType) json() map[string]any {
	switch t.kind {
	case kString:
		return map[string]any{"type": "string"}
	case kInteger:
		return map[string]any{"type": "integer"}
	case kNumber:
		return map[string]any{"type": "number"}
	case kBoolean:
		return map[string]any{"type": "boolean"}
	case kLiteral:
		return map[string]any{"const": t.literal}
	case kArray:
		return map[string]any{"type": "array", "items": t.items.json()}
	case kObject:
		return fieldsJSON(t.fields)
	case kUnion:
		all := true
		for _, u := range t.union {
			all = all && u.kind == kLiteral
		}
		if all {
			vals := make([]any, len(t.union))
			for i, u := range t.union {
				vals[i] = u.literal
			}
			return map[string]any{"enum": vals}
		}
		alts := make([]any, len(t.union))
		for i, u := range t.union {
			alts[i] = u.json()
		}
		return map[string]any{"anyOf": alts}
	}
	return map[string]any{} // any: no constraint
}

func fieldsJSON(fields []field) map[string]any {
	props := map[string]any{}
	var required []string
	for _, f := range fields {
		prop := f.typ.json()
		if f.description != "" {
			prop["description"] = f.description
		}
		if f.required {
			required = append(required, f.name)
		}
		props[f.name] = prop
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

type parser struct {
	in  string
	pos int
}

func (p *parser) rest() string { return p.in[p.pos:] }
func (p *parser) eof() bool    { return p.pos >= len(p.in) }

func (p *parser) peek() rune {
	if p.eof() {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(p.rest())
	return r
}

func (p *parser) advance() rune {
	if p.eof() {
		return 0
	}
	r, n := utf8.DecodeRuneInString(p.rest())
	p.pos += n
	return r
}

// continuation is the length of a "\<spaces>\n" line continuation at the
// position, or 0.
func (p *parser) continuation() int {
	r := p.rest()
	if !strings.HasPrefix(r, `\`) {
		return 0
	}
	after := r[1:]
	ws := len(after) - len(strings.TrimLeft(after, " \t"))
	if strings.HasPrefix(after[ws:], "\n") {
		return 1 + ws + 1
	}
	return 0
}

// skipWS skips spaces, tabs and line continuations (not newlines: they
// separate fields).
func (p *parser) skipWS() {
	for !p.eof() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t':
			p.pos++
		case c == '\\' && p.continuation() > 0:
			p.pos += p.continuation()
		default:
			return
		}
	}
}

// skipSeparators skips what may stand between fields.
func (p *parser) skipSeparators() {
	for !p.eof() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t' || c == ',' || c == '\n':
			p.pos++
		case c == '\\' && p.continuation() > 0:
			p.pos += p.continuation()
		default:
			return
		}
	}
}

func isNameChar(c rune) bool { return !strings.ContainsRune(" \t\n,:[]{}|?\\\"", c) }

func isKeywordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-'
}

func (p *parser) peekKeyword() string {
	r := p.rest()
	i := 0
	for i < len(r) && isKeywordByte(r[i]) {
		i++
	}
	return r[:i]
}

func (p *parser) fieldList(terminator rune) ([]field, error) {
	var fields []field
	for {
		p.skipSeparators()
		if p.eof() || terminator != 0 && p.peek() == terminator {
			return fields, nil
		}
		f, err := p.field(terminator)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
}

func (p *parser) field(terminator rune) (field, error) {
	p.skipWS()
	f := field{required: true, typ: schemaType{kind: kString}}
	if p.peek() == '?' {
		p.advance()
		f.required = false
	}
	p.skipWS()
	namePos := p.pos
	if p.peek() == '"' {
		name, err := p.quoted()
		if err != nil {
			return f, err
		}
		f.name = name
	} else {
		for !p.eof() && isNameChar(p.peek()) {
			p.advance()
		}
		f.name = p.in[namePos:p.pos]
	}
	if f.name == "" {
		return f, fmt.Errorf("expected field name at position %d", namePos)
	}
	p.skipWS()
	t, ok, err := p.tryType()
	if err != nil {
		return f, err
	}
	if ok {
		f.typ = t
	}
	p.skipWS()
	if p.peek() == ':' {
		p.advance()
		p.skipWS()
		d, err := p.description(terminator)
		if err != nil {
			return f, err
		}
		f.description = d
	}
	return f, nil
}

func isTypeKeyword(w string) bool {
	switch w {
	case "str", "string", "int", "integer", "float", "number", "bool", "boolean", "any", "true", "false", "null":
		return true
	}
	return false
}

// tryType reads the type after a field's name, if one is there; a word
// that is not a type is an error.
func (p *parser) tryType() (schemaType, bool, error) {
	c := p.peek()
	switch {
	case p.eof():
		return schemaType{}, false, nil
	case c == '[' || c == '{' || c == '"' || c == '-' || c >= '0' && c <= '9':
		t, err := p.typeExpr()
		return t, err == nil, err
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		w := p.peekKeyword()
		if isTypeKeyword(w) {
			t, err := p.typeExpr()
			return t, err == nil, err
		}
		return schemaType{}, false, unknownType(w, p.pos)
	}
	return schemaType{}, false, nil
}

func unknownType(w string, pos int) error {
	return fmt.Errorf("unknown type '%s' at position %d (expected: str, int, float, bool, any, or a literal value)", w, pos)
}

func (p *parser) typeExpr() (schemaType, error) {
	first, err := p.baseType()
	if err != nil {
		return first, err
	}
	p.skipWS()
	if p.peek() != '|' {
		return first, nil
	}
	u := schemaType{kind: kUnion, union: []schemaType{first}}
	for p.peek() == '|' {
		p.advance()
		p.skipWS()
		t, err := p.baseType()
		if err != nil {
			return t, err
		}
		u.union = append(u.union, t)
		p.skipWS()
	}
	return u, nil
}

func (p *parser) baseType() (schemaType, error) {
	p.skipWS()
	switch c := p.peek(); {
	case c == '[':
		return p.arrayType()
	case c == '{':
		return p.objectType()
	case c == '"':
		s, err := p.quoted()
		return schemaType{kind: kLiteral, literal: s}, err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	pos := p.pos
	w := p.peekKeyword()
	if w == "" {
		return schemaType{}, fmt.Errorf("expected type at position %d", pos)
	}
	p.pos += len(w)
	switch w {
	case "str", "string":
		return schemaType{kind: kString}, nil
	case "int", "integer":
		return schemaType{kind: kInteger}, nil
	case "float", "number":
		return schemaType{kind: kNumber}, nil
	case "bool", "boolean":
		return schemaType{kind: kBoolean}, nil
	case "any":
		return schemaType{kind: kAny}, nil
	case "true":
		return schemaType{kind: kLiteral, literal: true}, nil
	case "false":
		return schemaType{kind: kLiteral, literal: false}, nil
	case "null":
		return schemaType{kind: kLiteral, literal: nil}, nil
	}
	return schemaType{}, unknownType(w, pos)
}

func (p *parser) arrayType() (schemaType, error) {
	open := p.pos
	p.advance()
	p.skipWS()
	if p.peek() == ']' {
		p.advance()
		return schemaType{kind: kArray, items: &schemaType{kind: kAny}}, nil
	}
	items, err := p.typeExpr()
	if err != nil {
		return items, err
	}
	p.skipWS()
	if p.peek() != ']' {
		return schemaType{}, fmt.Errorf("unterminated array starting at position %d", open)
	}
	p.advance()
	return schemaType{kind: kArray, items: &items}, nil
}

func (p *parser) objectType() (schemaType, error) {
	open := p.pos
	p.advance()
	fields, err := p.fieldList('}')
	if err != nil {
		return schemaType{}, err
	}
	p.skipWS()
	if p.peek() != '}' {
		return schemaType{}, fmt.Errorf("unterminated object starting at position %d", open)
	}
	p.advance()
	if len(fields) == 0 {
		return schemaType{}, fmt.Errorf("empty object types at position %d are not supported (the model's strict mode needs explicit fields)", open)
	}
	return schemaType{kind: kObject, fields: fields}, nil
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }

func (p *parser) number() (schemaType, error) {
	start := p.pos
	if p.peek() == '-' {
		p.advance()
	}
	if !isDigit(p.peek()) || p.eof() {
		return schemaType{}, fmt.Errorf("expected type at position %d", start)
	}
	for !p.eof() && isDigit(p.peek()) {
		p.advance()
	}
	float := false
	if p.peek() == '.' && p.pos+1 < len(p.in) && isDigit(rune(p.in[p.pos+1])) {
		float = true
		p.advance()
		for !p.eof() && isDigit(p.peek()) {
			p.advance()
		}
	}
	raw := p.in[start:p.pos]
	if float {
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return schemaType{}, fmt.Errorf("invalid number literal '%s' at position %d", raw, start)
		}
		return schemaType{kind: kLiteral, literal: f}, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return schemaType{}, fmt.Errorf("invalid number literal '%s' at position %d", raw, start)
	}
	return schemaType{kind: kLiteral, literal: n}, nil
}

// quoted reads a "..." string; a backslash keeps the next character in the
// text as written (the Rust jp does not unescape either).
func (p *parser) quoted() (string, error) {
	open := p.pos
	p.advance()
	start := p.pos
	for {
		if p.eof() {
			return "", fmt.Errorf("unterminated quoted string starting at position %d", open)
		}
		switch p.advance() {
		case '"':
			return p.in[start : p.pos-1], nil
		case '\\':
			p.advance()
		}
	}
}

func (p *parser) description(terminator rune) (string, error) {
	if strings.HasPrefix(p.rest(), `"""`) {
		open := p.pos
		p.pos += 3
		if p.peek() == '\n' {
			p.pos++
		}
		end := strings.Index(p.rest(), `"""`)
		if end < 0 {
			return "", fmt.Errorf("unterminated heredoc starting at position %d", open)
		}
		text := strings.TrimRight(p.rest()[:end], "\n")
		p.pos += end + 3
		return text, nil
	}
	if p.peek() == '"' {
		return p.quoted()
	}
	var b strings.Builder
	for !p.eof() {
		c := p.peek()
		if c == '\n' || c == ',' || terminator != 0 && c == terminator {
			break
		}
		if c == '\\' && p.continuation() > 0 {
			p.pos += p.continuation()
			s := strings.TrimRight(b.String(), " \t")
			b.Reset()
			b.WriteString(s + " ")
			for p.peek() == ' ' || p.peek() == '\t' {
				p.pos++
			}
			continue
		}
		b.WriteRune(p.advance())
	}
	return strings.TrimSpace(b.String()), nil
}
