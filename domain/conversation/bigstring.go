package conversation

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// bigString is the size from which a string field of an event is encoded
// into a buffer of its size rather than by json.Marshal, whose buffer
// grows by a quarter at a time: a 20 MB message cost about 100 MB of
// buffers and copies to encode.
const bigString = 64 << 10

// marshalBig encodes w like json.Marshal, the one field *p (a string of
// at least bigString bytes, under key) written into a buffer sized for
// it. ok is false when no such field is given.
func marshalBig(w *wireEvent, key string, p **string) ([]byte, error) {
	s := **p
	*p = ptr("")
	head, err := json.Marshal(w)
	*p = &s
	if err != nil {
		return nil, err
	}
	// The first `"key":""` is the field's: every string before it is
	// escaped (no bare quote), and raw JSON values come after it.
	mark := []byte(`"` + key + `":""`)
	i := bytes.Index(head, mark)
	if i < 0 {
		return json.Marshal(w)
	}
	cut := i + len(mark) - 2
	out := make([]byte, 0, len(head)+len(s)+len(s)/16+16)
	out = append(out, head[:cut]...)
	out = appendJSONString(out, s)
	out = append(out, head[cut+2:]...)
	return out, nil
}

// bigField returns the key and the field of w holding a string of at least
// bigString bytes, if any.
func bigField(w *wireEvent) (string, **string) {
	for _, f := range []struct {
		key string
		p   **string
	}{{"content", &w.Content}, {"message", &w.Message}, {"reasoning", &w.Reasoning}} {
		if *f.p != nil && len(**f.p) >= bigString {
			return f.key, f.p
		}
	}
	return "", nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes it (HTML characters, U+2028 and U+2029 escaped; invalid UTF-8 as
// U+FFFD).
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
