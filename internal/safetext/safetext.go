// Package safetext is jp's one output sanitiser: text that jp did not
// write itself (from a model, a tool, a plugin, a provider's error, a
// stored conversation, a file name) goes through it before it reaches a
// terminal or a pipe, so that it cannot drive the terminal (set the
// clipboard with OSC 52, retitle the window, move the cursor).
//
// The rules, for every byte of the text:
//
//   - newline and tab pass; everything else below U+0020 (C0 controls,
//     ESC among them) and DEL are shown in caret notation: ESC as "^[",
//     BEL as "^G", DEL as "^?";
//   - CR followed by LF is dropped (the line ends with LF); a lone CR
//     becomes "^M";
//   - C1 controls, U+0080 to U+009F, whether UTF-8 encoded or raw bytes
//     outside a valid UTF-8 sequence, are shown as cat -v shows them:
//     U+009B (CSI) as "M-^[";
//   - Unicode format characters (general category Cf), which a terminal
//     does not print but which change what the text around them looks
//     like, are shown by code point: the bidirectional controls U+202A to
//     U+202E and U+2066 to U+2069 ("Trojan Source"), the zero-width
//     characters U+200B to U+200D, U+2060 and U+FEFF, the soft hyphen and
//     every other one, e.g. U+202E as "<U+202E>";
//   - everything else passes unchanged, including other bytes that are
//     not valid UTF-8 (they are not controls).
//
// The package is pure (standard library only) so that every ring may use
// it.
package safetext

import (
	"fmt"
	"io"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// caret[c] is how C0 control byte c is shown.
var caret [0x20]string

// meta[c-0x80] is how C1 control c is shown.
var meta [0x20]string

const del = "^?"

func init() {
	for c := range 0x20 {
		caret[c] = "^" + string(rune(c^0x40))
		meta[c] = "M-^" + string(rune(c^0x40))
	}
}

// scan looks at s from i and returns the index j of the first byte that
// may not be written as is (len(s) if none), the text to write in its
// place and how many bytes it replaces. When final is false and s ends in
// the middle of a unit (a CR that may be followed by LF, the start of a
// UTF-8 sequence), more is true and j is where that unit starts.
func scan(s string, i int, final bool) (j int, esc string, n int, more bool) {
	for j = i; j < len(s); {
		c := s[j]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			j++
			continue
		}
		switch {
		case c == '\r':
			if j+1 < len(s) {
				if s[j+1] == '\n' {
					return j, "", 1, false
				}
				return j, caret['\r'], 1, false
			}
			if !final {
				return j, "", 0, true
			}
			return j, caret['\r'], 1, false
		case c < 0x20:
			return j, caret[c], 1, false
		case c == 0x7f:
			return j, del, 1, false
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		switch {
		case r == utf8.RuneError && size == 1:
			if !final && !utf8.FullRuneInString(s[j:]) {
				return j, "", 0, true
			}
			if c < 0xa0 {
				return j, meta[c-0x80], 1, false
			}
			j++
		case r < 0xa0:
			return j, meta[r-0x80], size, false
		case unicode.Is(unicode.Cf, r):
			return j, codePoint(r), size, false
		default:
			j += size
		}
	}
	return len(s), "", 0, false
}

// codePoint is how format character r is shown: "<U+202E>".
func codePoint(r rune) string { return fmt.Sprintf("<U+%04X>", r) }

// Clean reports whether s passes unchanged.
func Clean(s string) bool {
	j, _, _, _ := scan(s, 0, true)
	return j == len(s)
}

// String returns s made safe; s itself when it is clean.
func String(s string) string {
	if Clean(s) {
		return s
	}
	return string(Append(make([]byte, 0, len(s)+16), s))
}

// Append appends s, made safe, to dst.
func Append(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		j, esc, n, _ := scan(s, i, true)
		dst = append(dst, s[i:j]...)
		if j == len(s) {
			break
		}
		dst = append(dst, esc...)
		i = j + n
	}
	return dst
}

// WriteString writes s, made safe, to w. Writing clean text costs one
// WriteString call and no allocation.
func WriteString(w io.StringWriter, s string) error {
	for i := 0; i < len(s); {
		j, esc, n, _ := scan(s, i, true)
		if j > i {
			if _, err := w.WriteString(s[i:j]); err != nil {
				return err
			}
		}
		if j == len(s) {
			break
		}
		if esc != "" {
			if _, err := w.WriteString(esc); err != nil {
				return err
			}
		}
		i = j + n
	}
	return nil
}

// Writer is an io.Writer that makes everything written through it safe
// before passing it on. A CR or a UTF-8 sequence cut at the end of one
// Write is held until the next Write (or Flush) decides it. It is safe for
// concurrent use.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	sw      io.StringWriter
	pending [utf8.UTFMax]byte
	n       int
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer {
	sw, ok := w.(io.StringWriter)
	if !ok {
		sw = stringWriter{w}
	}
	return &Writer{w: w, sw: sw}
}

type stringWriter struct{ w io.Writer }

func (s stringWriter) WriteString(str string) (int, error) { return io.WriteString(s.w, str) }

// Underlying returns the writer w writes to.
func (w *Writer) Underlying() io.Writer { return w.w }

// Write implements io.Writer: it reports len(p) on success.
func (w *Writer) Write(p []byte) (int, error) {
	if err := w.write(string(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteString implements io.StringWriter.
func (w *Writer) WriteString(s string) (int, error) {
	if err := w.write(s); err != nil {
		return 0, err
	}
	return len(s), nil
}

func (w *Writer) write(s string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	start := 0
	if w.n > 0 {
		// Decide the held bytes with the start of s.
		var buf [2 * utf8.UTFMax]byte
		k := copy(buf[:], w.pending[:w.n])
		m := copy(buf[k:], s)
		t := string(buf[:k+m])
		w.n = 0
		i := 0
		for i < k {
			j, esc, n, more := scan(t, i, false)
			if j >= k {
				// Clean past the held bytes: write up to the end of the
				// unit that holds the last of them.
				p := i
				for p < k {
					_, size := utf8.DecodeRuneInString(t[p:])
					p += size
				}
				if _, err := w.sw.WriteString(t[i:p]); err != nil {
					return err
				}
				i = p
				break
			}
			if j > i {
				if _, err := w.sw.WriteString(t[i:j]); err != nil {
					return err
				}
			}
			if more { // s was too short to decide: hold it all
				w.n = copy(w.pending[:], t[j:])
				return nil
			}
			if esc != "" {
				if _, err := w.sw.WriteString(esc); err != nil {
					return err
				}
			}
			i = j + n
		}
		start = i - k
	}
	for i := start; i < len(s); {
		j, esc, n, more := scan(s, i, false)
		if j > i {
			if _, err := w.sw.WriteString(s[i:j]); err != nil {
				return err
			}
		}
		if j == len(s) {
			break
		}
		if more {
			w.n = copy(w.pending[:], s[j:])
			return nil
		}
		if esc != "" {
			if _, err := w.sw.WriteString(esc); err != nil {
				return err
			}
		}
		i = j + n
	}
	return nil
}

// Flush writes the bytes held back from the last Write, as final text.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		return nil
	}
	s := string(w.pending[:w.n])
	w.n = 0
	return WriteString(w.sw, s)
}

// JSON escapes, in encoded JSON text b, the characters encoding/json
// leaves raw that a terminal would act on or that change how the text
// around them looks: DEL, the C1 controls U+0080 to U+009F and the
// format characters (Cf, U+202E among them) become \u007f, \u0080 ...
// \u009f, \u202e (a pair of surrogate escapes above U+FFFF). Outside
// strings JSON has no such characters, so the result decodes to the same
// value. It returns b itself when there is nothing to escape.
func JSON(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x7f {
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= 0x80 {
			r, size = utf8.DecodeRune(b[i:])
		}
		if !(r == 0x7f || r >= 0x80 && r < 0xa0 && size > 1 || size > 1 && unicode.Is(unicode.Cf, r)) {
			i += size
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b)+16)
		}
		out = append(out, b[last:i]...)
		if r > 0xffff {
			hi, lo := utf16.EncodeRune(r)
			out = appendU(appendU(out, hi), lo)
		} else {
			out = appendU(out, r)
		}
		i += size
		last = i
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// appendU appends the JSON escape \uXXXX of r (at most U+FFFF).
func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

const hex = "0123456789abcdef"
