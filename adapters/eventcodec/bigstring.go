package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// bigString is the size from which a string (or bytes) field of an event
// is kept apart from the rest of its stored line (see StoredLine) and
// encoded by appendJSONString (or base64) rather than by json.Marshal,
// whose buffer grows by a quarter at a time: a 20 MB message cost about
// 100 MB of buffers and copies to encode.
const bigString = 64 << 10

// StoredLine is an event's stored line (without its newline), held in
// parts: its big values (a 20 MB message, a pasted attachment) are
// encoded as the line is written, in pieces, rather than into a line of
// their size first.
type StoredLine struct {
	// parts are the line's bytes around its big values: parts[0], bigs[0]
	// encoded, parts[1], and so on. A line without big values is parts[0].
	parts [][]byte
	bigs  []bigValue
}

// bigValue is a big field's value: a string, or bytes (bin) that JSON
// holds in base64.
type bigValue struct {
	s   string
	b   []byte
	bin bool
}

// Split reports whether the line holds big values kept apart, encoded
// only as the line is written (else Bytes is the line as it is held).
func (l StoredLine) Split() bool { return len(l.bigs) > 0 }

// MinLen is the line's length with its big strings counted before
// encoding: its exact length, or less by the escapes they need.
func (l StoredLine) MinLen() int {
	n := 0
	for _, p := range l.parts {
		n += len(p)
	}
	for _, v := range l.bigs {
		if v.bin {
			n += base64.StdEncoding.EncodedLen(len(v.b)) + 2
		} else {
			n += len(v.s) + 2
		}
	}
	return n
}

// Bytes returns the whole line.
func (l StoredLine) Bytes() []byte {
	if !l.Split() {
		return l.parts[0]
	}
	n := l.MinLen()
	out := make([]byte, 0, n+n/16+16)
	for i, p := range l.parts {
		out = append(out, p...)
		if i < len(l.bigs) {
			if v := l.bigs[i]; v.bin {
				out = append(out, '"')
				out = base64.StdEncoding.AppendEncode(out, v.b)
				out = append(out, '"')
			} else {
				out = appendJSONString(out, v.s)
			}
		}
	}
	return out
}

// WriteTo writes the line to w, its big values encoded in pieces of
// bigPiece bytes (its output is written a piece at a time: give it a
// buffered writer).
func (l StoredLine) WriteTo(w io.Writer) (int64, error) {
	return l.writeTo(w, bigPiece)
}

// bigPiece is the size of the pieces WriteTo encodes a big value in.
const bigPiece = 32 << 10

func (l StoredLine) writeTo(w io.Writer, piece int) (int64, error) {
	var total int64
	for i, p := range l.parts {
		n, err := w.Write(p)
		total += int64(n)
		if err != nil || i == len(l.bigs) {
			return total, err
		}
		var m int64
		if v := l.bigs[i]; v.bin {
			m, err = writeBase64(w, v.b, piece)
		} else {
			m, err = writeJSONString(w, v.s, piece)
		}
		total += m
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// writeBase64 writes b to w as a JSON string of its base64, as
// encoding/json writes a []byte, piece (rounded to a multiple of 3) bytes
// of b at a time.
func writeBase64(w io.Writer, b []byte, piece int) (int64, error) {
	piece = max(3, piece/3*3)
	return writeQuoted(w, base64.StdEncoding.EncodedLen(min(len(b), piece)), func(buf []byte) ([]byte, bool) {
		n := min(len(b), piece)
		buf = base64.StdEncoding.AppendEncode(buf, b[:n])
		b = b[n:]
		return buf, len(b) == 0
	})
}

// writeJSONString writes s to w as appendJSONString encodes it, a piece
// of at most about piece bytes of s at a time. Pieces are cut where no
// UTF-8 sequence crosses (see cutPiece), so that each encodes as it does
// within s.
func writeJSONString(w io.Writer, s string, piece int) (int64, error) {
	return writeQuoted(w, min(len(s), piece)+piece/8, func(buf []byte) ([]byte, bool) {
		if len(s) == 0 {
			return buf, true
		}
		n := cutPiece(s, piece)
		buf = appendJSONChars(buf, s[:n])
		s = s[n:]
		return buf, len(s) == 0
	})
}

// writeQuoted writes a JSON string to w: the quote, the pieces next
// appends to a buffer (of about size bytes) until it reports the last,
// each written as it is made, and the closing quote.
func writeQuoted(w io.Writer, size int, next func([]byte) ([]byte, bool)) (int64, error) {
	buf := make([]byte, 0, size+8)
	buf = append(buf, '"')
	var total int64
	for {
		var last bool
		if buf, last = next(buf); last {
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

// bigMark is the stand-in of a big value while the rest of a line is
// encoded by json.Marshal; the i-th is bigMark followed by i. Each is
// looked for, quoted, in the result, and used only when it is found once
// (a raw JSON value could hold the same text).
const bigMark = "jp-big-value-5f0d2c9e-"

// splitBig is w's stored line, its big values (strings or bytes of at
// least bigString bytes: content, message, reasoning, attachments'
// content and data) kept apart to be encoded as the line is written. The
// line's bytes are those of json.Marshal(w).
func splitBig(w wireEvent) (StoredLine, error) {
	orig := w
	var bigs []bigValue
	mark := func(v bigValue) string {
		bigs = append(bigs, v)
		return bigMark + strconv.Itoa(len(bigs)-1)
	}
	for _, p := range []**string{&w.Content, &w.Message, &w.Reasoning} {
		if *p != nil && len(**p) >= bigString {
			*p = ptr(mark(bigValue{s: **p}))
		}
	}
	if slices.ContainsFunc(w.Attach, func(a conversation.Attachment) bool { return len(a.Content) >= bigString || len(a.Data) >= bigString }) {
		w.Attach = slices.Clone(w.Attach)
		for i := range w.Attach {
			if a := &w.Attach[i]; len(a.Content) >= bigString {
				a.Content = mark(bigValue{s: a.Content})
			}
			if a := &w.Attach[i]; len(a.Data) >= bigString {
				a.Data = []byte(mark(bigValue{b: a.Data, bin: true}))
			}
		}
	}
	b, err := json.Marshal(w)
	if err != nil || len(bigs) == 0 {
		return StoredLine{parts: [][]byte{b}}, err
	}
	type cut struct{ at, end, big int }
	cuts := make([]cut, 0, len(bigs))
	for i, v := range bigs {
		m := bigMark + strconv.Itoa(i)
		if v.bin {
			m = base64.StdEncoding.EncodeToString([]byte(m))
		}
		q := []byte(`"` + m + `"`)
		at := bytes.Index(b, q)
		if at < 0 || bytes.Count(b, q) != 1 {
			b, err := json.Marshal(orig)
			return StoredLine{parts: [][]byte{b}}, err
		}
		cuts = append(cuts, cut{at, at + len(q), i})
	}
	slices.SortFunc(cuts, func(x, y cut) int { return x.at - y.at })
	l := StoredLine{parts: make([][]byte, 0, len(cuts)+1), bigs: make([]bigValue, 0, len(cuts))}
	prev := 0
	for _, c := range cuts {
		l.parts = append(l.parts, b[prev:c.at])
		l.bigs = append(l.bigs, bigs[c.big])
		prev = c.end
	}
	l.parts = append(l.parts, b[prev:])
	return l, nil
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
