package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
)

// hostileText is every byte and rune a terminal acts on, for the tests
// that feed jp untrusted text: C0 controls (ESC, BEL, a lone CR), DEL,
// C1 controls both UTF-8 encoded and raw, an OSC 52 clipboard write and
// an OSC 0 window title.
func hostileText() string {
	var b strings.Builder
	b.WriteString("clip\x1b]52;c;aGVsbG8=\x07 title\x1b]0;pwned\x1b\\ ")
	for c := 0; c < 0x20; c++ {
		if c != '\n' {
			b.WriteByte(byte(c))
		}
	}
	b.WriteString("\x7f lone\rcr ")
	for r := rune(0x80); r < 0xa0; r++ {
		b.WriteRune(r)
	}
	for c := 0x80; c < 0xa0; c++ {
		b.WriteByte(byte(c))
	}
	return b.String()
}

// controlAt returns the offset of the first byte or rune of out that a
// terminal would act on (anything but newline and tab below U+0020, DEL,
// C1 encoded or raw), or -1.
func controlAt(out string) int {
	for i := 0; i < len(out); {
		c := out[i]
		r, size := utf8.DecodeRuneInString(out[i:])
		switch {
		case c == '\n' || c == '\t':
		case c < 0x20 || c == 0x7f:
			return i
		case r >= 0x80 && r < 0xa0, r == utf8.RuneError && size == 1 && c >= 0x80 && c < 0xa0:
			return i
		}
		i += size
	}
	return -1
}

// nocontrol FILE fails if FILE (stdout, stderr or a path) holds a byte a
// terminal would act on; it reads the raw bytes.
func cmdNoControl(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: nocontrol stdout|stderr|FILE")
	}
	out := ts.ReadFile(args[0])
	if i := controlAt(out); (i >= 0) != neg {
		if neg {
			ts.Fatalf("%s has no control byte", args[0])
		}
		lo, hi := max(0, i-40), min(len(out), i+40)
		ts.Fatalf("%s: control byte %#x at offset %d: %q", args[0], out[i], i, out[lo:hi])
	}
}

// hostile FILE writes hostileText to FILE; with -json, as a JSON string
// (without quotes), for scripts and plugin lines.
func cmdHostile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 2 && args[0] == "-json" {
		var b strings.Builder
		for _, r := range hostileText() {
			if r < 0x20 || r >= 0x7f && r < 0xa0 || r == '"' || r == '\\' {
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[r>>4])
				b.WriteByte("0123456789abcdef"[r&0xf])
				continue
			}
			if r == utf8.RuneError {
				continue // the raw C1 bytes do not survive JSON
			}
			b.WriteRune(r)
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
		return
	}
	if len(args) != 1 {
		ts.Fatalf("usage: hostile [-json] FILE")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(hostileText()), 0o644))
}

// errserver VAR starts an HTTP server that answers every request with a
// 400 whose body carries hostileText (as an OpenAI-style JSON error and
// raw), and sets VAR to its URL.
func cmdErrServer(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: errserver VAR")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"bad request \u001b]52;c;aGVsbG8=\u0007 \u009b31m","type":"invalid_request_error"}, "raw":"` + hostileText() + `"}`))
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}
