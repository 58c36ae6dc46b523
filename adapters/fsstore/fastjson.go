package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"encoding/json"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/jpcli/jp/domain/conversation"
)

// List decodes thousands of metadata files, and encoding/json's reflection
// is half its cost. The fast decoders below read the documents this store
// writes (flat objects with known keys, strings without escapes); for
// anything else they decline and decodeMetadata falls back to
// encoding/json, which then also produces the errors. A result from a fast
// decoder always equals what encoding/json would give.

// decodeMetadata decodes metadata.json read from dir/rel.
func decodeMetadata(dir, rel string, b []byte, m *conversation.Metadata) error {
	if fastMetadata(b, m) {
		return nil
	}
	*m = conversation.Metadata{}
	return decodeJSON(filepath.Join(dir, rel), b, (*eventcodec.MetadataJSON)(m))
}

// decodeLocal decodes metadata.local.json read from dir/rel.
func decodeLocal(dir, rel string, b []byte, m *conversation.LocalMetadata) error {
	if fastLocal(b, m) {
		return nil
	}
	*m = conversation.LocalMetadata{}
	return decodeJSON(filepath.Join(dir, rel), b, (*eventcodec.LocalJSON)(m))
}

// scanner reads JSON tokens from b.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat consumes c (after white space).
func (s *scanner) eat(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// peek returns the next byte after white space, or 0.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// rawString returns the bytes of a string without escapes.
func (s *scanner) rawString() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	ascii := true
	for ; s.i < len(s.b); s.i++ {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			return raw, ascii || utf8.Valid(raw)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false
}

func (s *scanner) str() (string, bool) {
	raw, ok := s.rawString()
	return string(raw), ok
}

// literal consumes one of the words true, false, null.
func (s *scanner) literal(word string) bool {
	s.ws()
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

func (s *scanner) time() (time.Time, bool) {
	raw, ok := s.rawString()
	var t time.Time
	return t, ok && t.UnmarshalText(raw) == nil
}

// timePtr reads null or a time.
func (s *scanner) timePtr() (*time.Time, bool) {
	if s.literal("null") {
		return nil, true
	}
	t, ok := s.time()
	return &t, ok
}

// int reads an integer without fraction or exponent.
func (s *scanner) int() (int, bool) {
	s.ws()
	neg := s.eat('-')
	start, n := s.i, 0
	for ; s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9'; s.i++ {
		if s.i-start > 15 {
			return 0, false
		}
		n = n*10 + int(s.b[s.i]-'0')
	}
	if s.i == start || (s.b[start] == '0' && s.i-start > 1) {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// object reads {"key": value, ...}, calling field for each key; field
// reads the value and reports whether it could.
func (s *scanner) object(field func(key []byte) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	for {
		key, ok := s.rawString()
		if !ok || !s.eat(':') || !field(key) {
			return false
		}
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// end reports whether only white space is left.
func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

func fastMetadata(b []byte, m *conversation.Metadata) bool {
	s := scanner{b: b}
	*m = conversation.Metadata{}
	ok := s.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "title":
			m.Title, ok = s.str()
		case "created_at":
			m.CreatedAt, ok = s.time()
		case "last_activated_at":
			m.LastActivatedAt, ok = s.time()
		case "pinned_at":
			m.PinnedAt, ok = s.timePtr()
		case "archived_at":
			m.ArchivedAt, ok = s.timePtr()
		case "events_count":
			m.EventsCount, ok = s.int()
			m.HasEventsCount = true
		}
		return ok
	})
	return ok && s.end()
}

func fastLocal(b []byte, m *conversation.LocalMetadata) bool {
	s := scanner{b: b}
	*m = conversation.LocalMetadata{}
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "local":
			if s.literal("true") {
				m.Local = true
				return true
			}
			m.Local = false
			return s.literal("false")
		case "last_root":
			if s.peek() != '{' {
				return false // null and other shapes: leave them to encoding/json
			}
			lr := &conversation.LastRoot{}
			m.LastRoot = lr
			return s.object(func(key []byte) bool {
				var ok bool
				switch string(key) {
				case "path":
					lr.Path, ok = s.str()
				case "last_used":
					lr.LastUsed, ok = s.time()
				}
				return ok
			})
		}
		// A key this version does not know: keep its value verbatim.
		start := s.i
		if !s.skip() {
			return false
		}
		raw := trimJSONSpace(s.b[start:s.i])
		if !json.Valid(raw) {
			return false
		}
		if m.Extra == nil {
			m.Extra = map[string]json.RawMessage{}
		}
		if _, dup := m.Extra[string(key)]; dup {
			return false
		}
		m.Extra[string(key)] = append(json.RawMessage(nil), raw...)
		return true
	})
	return ok && s.end()
}

// skip passes over one value of any kind, without checking it closely
// (the caller validates what it keeps).
func (s *scanner) skip() bool {
	s.ws()
	depth := 0
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			for s.i < len(s.b) && s.b[s.i] != '"' {
				if s.b[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
			if s.i >= len(s.b) {
				return false
			}
			s.i++
		case c == '{' || c == '[':
			depth++
			s.i++
		case c == '}' || c == ']':
			if depth == 0 {
				return true
			}
			depth--
			s.i++
		case c == ',' && depth == 0:
			return true
		default:
			s.i++
		}
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return true
		}
	}
	return depth == 0
}

// trimJSONSpace strips JSON white space from both ends of b.
func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
