package pluginwire

import (
	"encoding/json"
	. "github.com/jpcli/jp/domain/plugin"
	"strings"
	"testing"
)

// FuzzDecodeMessage feeds a plugin's stdout line to everything that reads
// one: the header (its fast path must agree with encoding/json), every
// request type, a config answer and a manifest. Nothing may panic, and
// every error is one line.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"ready"}`,
		`{"type":"print","text":"hi\n","channel":"chrome","format":"markdown"}`,
		`{"type":"exit","code":3,"reason":"\u001b]52;c;aGk=\u0007"}`,
		`{"type":"write_draft","id":"d","conversation":"17127583920","text":"x","revision":"r1"}`,
		`{"type":"set_title","id":"t","workspace":{"id":"a1b2c3d","root":"/src"},"conversation":"17127583920","title":"T"}`,
		`{"type":"query","id":"q","conversation":"17127583920","content":"go","expected_last_root":"/a"}`,
		`{"type":"prompt","kind":"select","message":"Pick","options":["a","b"]}`,
		`{"type":"respond","call_id":"c","action":"approve"}`,
		`{"type":"config","id":"c","data":{"a":1}}`,
		`{"type":"read_events","conversation":"../../etc/passwd"}`,
		`{"type":17}`, `{"id":["x"]}`, `[]`, `garbage {{{`, "\x01\x02", `{"type":"log","level":"warn","message":"m","fields":{"k":1}}`,
		`{"name":"x","version":"1","command":["x"],"workspace_scope":"multi","protocol_version":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		oneLine := func(what string, err error) {
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("%s: error on two lines: %q", what, err)
			}
		}
		h, err := DecodeHeader(line)
		oneLine("header", err)
		if err == nil {
			var slow Header
			if json.Unmarshal(line, &slow) == nil && (slow.Type != h.Type || slow.ID != h.ID) {
				t.Fatalf("DecodeHeader(%q) = %+v, encoding/json reads %+v", line, h, slow)
			}
		}
		for name, decode := range map[string]func([]byte) error{
			"ready":       func(b []byte) error { _, err := Decode[Ready](b); return err },
			"exit":        func(b []byte) error { _, err := Decode[Exit](b); return err },
			"print":       func(b []byte) error { _, err := Decode[Print](b); return err },
			"log":         func(b []byte) error { _, err := Decode[Log](b); return err },
			"read_events": func(b []byte) error { _, err := Decode[ReadEvents](b); return err },
			"write_draft": func(b []byte) error { _, err := Decode[WriteDraft](b); return err },
			"set_title":   func(b []byte) error { _, err := Decode[SetTitle](b); return err },
			"create":      func(b []byte) error { _, err := Decode[CreateConversation](b); return err },
			"query":       func(b []byte) error { _, err := Decode[Query](b); return err },
			"respond":     func(b []byte) error { _, err := Decode[Respond](b); return err },
			"prompt":      func(b []byte) error { _, err := Decode[Prompt](b); return err },
			"lock":        func(b []byte) error { _, err := Decode[Lock](b); return err },
		} {
			oneLine(name, decode(line))
		}
		var c Config
		_ = Unmarshal(line, &c)
		_, err = ParseManifest(line)
		oneLine("manifest", err)
	})
}
