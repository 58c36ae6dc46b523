package conversation

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"
)

// bigString is the size from which a string field of an event is kept
// apart from the rest of its stored line (see StoredLine) and encoded by
// appendJSONString rather than by json.Marshal, whose buffer grows by a
// quarter at a time: a 20 MB message cost about 100 MB of buffers and
// copies to encode.
const bigString = 64 << 10

// StoredLine is an event's stored line (without its newline), held in
// parts: a big string field (a 20 MB message) is encoded as the line is
// written, in pieces, rather than into a line of its size first.
type StoredLine struct {
	head []byte // the whole line, or what precedes the big string's value
	big  string // the big string, encoded between head and tail when split
	tail []byte
	// split: the line is head, big encoded as a JSON string, then tail.
	split bool
}

// Split reports whether the line holds a big string kept apart, encoded
// only as the line is written (else Bytes is the line as it is held).
func (l StoredLine) Split() bool { return l.split }

// MinLen is the line's length with its big string counted before
// encoding: its exact length, or less by the escapes the big string needs.
func (l StoredLine) MinLen() int {
	if !l.split {
		return len(l.head)
	}
	return len(l.head) + len(l.big) + 2 + len(l.tail)
}

// Bytes returns the whole line.
func (l StoredLine) Bytes() []byte {
	if !l.split {
		return l.head
	}
	out := make([]byte, 0, len(l.head)+len(l.big)+len(l.big)/16+16+len(l.tail))
	out = append(out, l.head...)
	out = appendJSONString(out, l.big)
	return append(out, l.tail...)
}

// WriteTo writes the line to w, a big string encoded in pieces of
// bigPiece bytes (its output is written a piece at a time: give it a
// buffered writer).
func (l StoredLine) WriteTo(w io.Writer) (int64, error) {
	return l.writeTo(w, bigPiece)
}

// bigPiece is the size of the pieces WriteTo encodes a big string in.
const bigPiece = 32 << 10

func (l StoredLine) writeTo(w io.Writer, piece int) (int64, error) {
	n, err := w.Write(l.head)
	total := int64(n)
	if err != nil || !l.split {
		return total, err
	}
	m, err := writeJSONString(w, l.big, piece)
	total += m
	if err != nil {
		return total, err
	}
	n, err = w.Write(l.tail)
	return total + int64(n), err
}

// writeJSONString writes s to w as appendJSONString encodes it, a piece
// of at most about piece bytes of s at a time. Pieces are cut where no
// UTF-8 sequence crosses (see cutPiece), so that each encodes as it does
// within s.
func writeJSONString(w io.Writer, s string, piece int) (int64, error) {
	buf := make([]byte, 0, min(len(s), piece)+piece/8+8)
	buf = append(buf, '"')
	var total int64
	for len(s) > 0 {
		n := cutPiece(s, piece)
		buf = appendJSONChars(buf, s[:n])
		s = s[n:]
		if len(s) == 0 {
			break
		}
		m, err := w.Write(buf)
		total += int64(m)
		if err != nil {
			return total, err
		}
		buf = buf[:0]
	}
	buf = append(buf, '"')
	m, err := w.Write(buf)
	return total + int64(m), err
}

// cutPiece returns where to cut s at about n (at least 1) bytes: at the
// first byte from n on that starts a UTF-8 sequence, or after three
// continuation bytes in a row (no valid sequence crosses such a cut, and
// invalid bytes are encoded one at a time, so the bytes on either side
// encode as they do in s).
func cutPiece(s string, n int) int {
	n = max(n, 1)
	for j := n; j < len(s) && j < n+utf8.UTFMax; j++ {
		if utf8.RuneStart(s[j]) {
			return j
		}
	}
	return min(len(s), n+utf8.UTFMax)
}

// splitBig is w's stored line, the one field *p (a string of at least
// bigString bytes, under key) kept apart to be encoded as it is written.
// The line's bytes are those of json.Marshal(w).
func splitBig(w *wireEvent, key string, p **string) (StoredLine, error) {
	s := **p
	*p = ptr("")
	head, err := json.Marshal(w)
	*p = &s
	if err != nil {
		return StoredLine{}, err
	}
	// The first `"key":""` is the field's: every string before it is
	// escaped (no bare quote), and raw JSON values come after it.
	mark := []byte(`"` + key + `":""`)
	i := bytes.Index(head, mark)
	if i < 0 {
		b, err := json.Marshal(w)
		return StoredLine{head: b}, err
	}
	cut := i + len(mark) - 2
	return StoredLine{head: head[:cut], big: s, tail: head[cut+2:], split: true}, nil
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
	dst = appendJSONChars(dst, s)
	return append(dst, '"')
}

// appendJSONChars appends s encoded as the inside of a JSON string.
func appendJSONChars(dst []byte, s string) []byte {
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
	return append(dst, s[start:]...)
}
