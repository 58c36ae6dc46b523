package conversation

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeEvents reads events.json as it may be found in a checkout
// (committed, merged, edited by hand): no panic, and what decodes encodes
// and decodes again to as many events (unknown types and fields kept).
func FuzzDecodeEvents(f *testing.F) {
	for _, s := range []string{
		`[]`,
		`[{"type":"turn_start","id":"e1","timestamp":"2026-09-26T09:14:00Z","root":"/src/a"},
		  {"type":"chat_request","id":"e2","timestamp":"2026-09-26T09:14:00Z","content":"hi","author":"user"},
		  {"type":"chat_response","id":"e3","timestamp":"2026-09-26T09:14:01Z","message":"hello","reasoning":"r"},
		  {"type":"tool_call_request","id":"e4","timestamp":"2026-09-26T09:14:01Z","call_id":"c","name":"fs_read","arguments":{"path":"a"}},
		  {"type":"tool_call_response","id":"e5","timestamp":"2026-09-26T09:14:02Z","call_id":"c","content":"x","is_error":true},
		  {"type":"turn_end","id":"e6","timestamp":"2026-09-26T09:14:02Z","outcome":"stopped"}]`,
		`[{"type":"from_the_future","id":"x","timestamp":"2026-09-26T09:14:00Z","extra":{"a":[1,2]}}]`,
		`<<<<<<< HEAD
[]
=======
[{}]
>>>>>>> theirs`,
		`[{"type":"chat_request","timestamp":"not a time"}]`, `{"type":"x"}`, `[null]`, `[1]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := DecodeEvents(b)
		if err != nil {
			return
		}
		out, err := json.Marshal(evs)
		if err != nil {
			t.Fatalf("decoded events do not encode: %v", err)
		}
		again, err := DecodeEvents(out)
		if err != nil || len(again) != len(evs) {
			t.Fatalf("re-decoding gave %d events, %v; want %d\n%s", len(again), err, len(evs), out)
		}
		_, _ = NewStream(evs)
	})
}

// FuzzMetadata reads metadata.json and metadata.local.json: no panic, and
// what decodes survives a rewrite (unknown keys kept).
func FuzzMetadata(f *testing.F) {
	for _, s := range []string{
		`{"title":"T","last_activated_at":"2026-09-26T09:14:00Z","pinned_at":null,"future":{"k":[1]}}`,
		`{"title":"\u001b]0;x\u0007","archived_at":"2026-09-26T09:14:00Z"}`,
		`{"last_root":{"path":"/a","last_used":"2026-09-26T09:14:00Z"},"unknown":1}`,
		`{}`, `[]`, `{"title":7}`, `{"last_activated_at":"yesterday"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Metadata
		if json.Unmarshal(b, &m) == nil {
			out, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("metadata does not encode: %v", err)
			}
			var again Metadata
			if err := json.Unmarshal(out, &again); err != nil {
				t.Fatalf("rewritten metadata does not decode: %v\n%s", err, out)
			}
			if again.Title != m.Title {
				t.Fatalf("title %q became %q", m.Title, again.Title)
			}
		}
		var l LocalMetadata
		if json.Unmarshal(b, &l) == nil {
			out, err := json.Marshal(l)
			if err != nil {
				t.Fatalf("local metadata does not encode: %v", err)
			}
			var again LocalMetadata
			if err := json.Unmarshal(out, &again); err != nil {
				t.Fatalf("rewritten local metadata does not decode: %v\n%s", err, out)
			}
		}
		_, _ = CheckTitle(string(b), true)
	})
}
