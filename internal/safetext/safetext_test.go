package safetext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"\x1b]52;c;aGk=\x07", "^[]52;c;aGk=^G"},
		{"\x1b]0;title\x1b\\", "^[]0;title^[\\"},
		{"a\x00b\x7fc", "a^@b^?c"},
		{"line\r\nnext\r\n", "line\nnext\n"},
		{"over\rwrite", "over^Mwrite"},
		{"end\r", "end^M"},
		{"csi \u009b31m", "csi M-^[31m"},
		{"c1 \u0080 \u009f", "c1 M-^@ M-^_"},
		{"raw \x9b byte", "raw M-^[ byte"},
		{"raw \xff byte", "raw \xff byte"},
		{"nbsp \u00a0 é “quoted” 日本", "nbsp \u00a0 é “quoted” 日本"},
		{"cut \xe2\x80", "cut \xe2M-^@"},
		{"evil\u202egnp.sh", "evil<U+202E>gnp.sh"},
		{"\u202a\u202b\u202c\u202d \u2066\u2067\u2068\u2069", "<U+202A><U+202B><U+202C><U+202D> <U+2066><U+2067><U+2068><U+2069>"},
		{"zero\u200bwidth\u200c\u200d\u2060\ufeff", "zero<U+200B>width<U+200C><U+200D><U+2060><U+FEFF>"},
		{"soft\u00adhyphen lrm\u200e tag\U000E0041", "soft<U+00AD>hyphen lrm<U+200E> tag<U+E0041>"},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
		var b strings.Builder
		if err := WriteString(&b, tc.in); err != nil || b.String() != tc.want {
			t.Errorf("WriteString(%q) = %q, %v; want %q", tc.in, b.String(), err, tc.want)
		}
		if Clean(tc.in) != (tc.in == tc.want) {
			t.Errorf("Clean(%q) = %v", tc.in, Clean(tc.in))
		}
	}
}

// assertSafe fails if out holds a byte a terminal would act on.
func assertSafe(t *testing.T, out string) {
	t.Helper()
	for i := 0; i < len(out); {
		c := out[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			t.Fatalf("control byte %#x at %d in %q", c, i, out)
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		if r >= 0x80 && r < 0xa0 || r == utf8.RuneError && size == 1 && c >= 0x80 && c < 0xa0 {
			t.Fatalf("C1 control %#x at %d in %q", r, i, out)
		}
		if unicode.Is(unicode.Cf, r) {
			t.Fatalf("format character %U at %d in %q", r, i, out)
		}
		i += size
	}
}

// Writing through a Writer in pieces gives the same bytes as String of
// the whole, wherever the pieces are cut.
func TestWriterSplits(t *testing.T) {
	t.Parallel()
	in := "a\r\nb\rc\xe2\x80\x9cq\xe2\x80\x9d \u009b \xc2\x9b\x1b[0m 日本\u202e\U000E0041\r"
	want := String(in)
	for cut := 0; cut <= len(in); cut++ {
		for cut2 := cut; cut2 <= len(in); cut2++ {
			var b bytes.Buffer
			w := NewWriter(&b)
			for _, part := range []string{in[:cut], in[cut:cut2], in[cut2:]} {
				if _, err := w.Write([]byte(part)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != want {
				t.Fatalf("cut at %d,%d: %q, want %q", cut, cut2, b.String(), want)
			}
		}
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	in := "esc \x1b del \x7f csi \u009b é rlo \u202e zwsp \u200b tag \U000E0041"
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(b)
	if want := `"esc \u001b del \u007f csi \u009b é rlo \u202e zwsp \u200b tag \udb40\udc41"`; string(got) != want {
		t.Fatalf("JSON = %s, want %s", got, want)
	}
	var back string
	if err := json.Unmarshal(got, &back); err != nil || back != in {
		t.Fatalf("round trip: %q, %v", back, err)
	}
	if clean := []byte(`{"a":"é"}`); &JSON(clean)[0] != &clean[0] {
		t.Fatal("clean JSON was copied")
	}
}

func FuzzWriter(f *testing.F) {
	f.Add("\x1b]52;c;aGk=\x07", 3)
	f.Add("a\r\nb\rc \u009b \xc2", 1)
	f.Add("“日本”\r", 2)
	f.Add("a\u202eb\u200b", 2)
	f.Fuzz(func(t *testing.T, in string, cut int) {
		want := String(in)
		assertSafe(t, want)
		if cut < 0 {
			cut = -cut
		}
		if len(in) > 0 {
			cut %= len(in) + 1
		} else {
			cut = 0
		}
		var b bytes.Buffer
		w := NewWriter(&b)
		_, _ = w.WriteString(in[:cut])
		_, _ = w.WriteString(in[cut:])
		_ = w.Flush()
		if b.String() != want {
			t.Fatalf("cut at %d: %q, want %q", cut, b.String(), want)
		}
		if j := JSON([]byte(in)); utf8.ValidString(in) && bytes.Contains(j, []byte{0x7f}) {
			t.Fatalf("JSON left DEL in %q", j)
		}
	})
}

func BenchmarkWriteStringClean(b *testing.B) {
	var sink bytes.Buffer
	s := strings.Repeat("Some ordinary model output, with “quotes” and é. ", 20)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		sink.Reset()
		_ = WriteString(&sink, s)
	}
}
