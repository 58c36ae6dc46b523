package demo

import (
	"strings"
	"testing"
)

// FuzzParseScript reads a demo script: no panic, and an error is one line
// starting "demo script PATH".
func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		`{"responses":[{"events":[{"text":"Hello"},{"sleep_ms":5},{"text":" world","repeat":2}]}]}`,
		`{"responses":[{"events":[{"tool_call":{"name":"fs_read","arguments":{"path":"a"}}},{"usage":{"input_tokens":1,"output_tokens":2}}]}]}`,
		`{"responses":[{"events":[{"error":"transient","message":"overloaded"}]}]}`,
		`{"responses":[{"events":[{"txt":"x"}]}]}`, `{"responses":[{"events":[{"text":"a","reasoning":"b"}]}]}`,
		`{"responses":[{"events":[{"repeat":-1,"text":"x"}]}]}`, `{`, `[]`, `{"responses":{}}`, "\"\u2028\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseScript("ci/script.json", data)
		if err != nil && (strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "demo script ci/script.json")) {
			t.Fatalf("error %q: want one line starting with the file", err)
		}
	})
}
