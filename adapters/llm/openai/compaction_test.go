package openai

import (
	"encoding/json"
	"testing"

	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
)

// TestCompactionRequests compares the request bodies built for each
// compaction scenario of the Rust jp's request snapshots, by the
// Responses API (testdata/compaction/responses/) and by Chat Completions
// (testdata/compaction/chat/), with the expected ones.
func TestCompactionRequests(t *testing.T) {
	field := func(t *testing.T, v any, key string) json.RawMessage {
		t.Helper()
		body, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		return m[key]
	}
	for _, sc := range llmtest.CompactionScenarios {
		t.Run(sc, func(t *testing.T) {
			req := llm.Request{Model: "gpt-5-mini", Messages: llmtest.CompactionHistory(t, sc)}
			rp, err := buildResponsesParams(req)
			if err != nil {
				t.Fatal(err)
			}
			llmtest.AssertGolden(t, "compaction/responses/"+sc+".json", field(t, rp, "input"))
			cp, _, err := buildParams(req, true)
			if err != nil {
				t.Fatal(err)
			}
			llmtest.AssertGolden(t, "compaction/chat/"+sc+".json", field(t, cp, "messages"))
		})
	}
}
