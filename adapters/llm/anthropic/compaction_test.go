package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
)

// TestCompactionRequests compares the messages of the request body built
// for each compaction scenario of the Rust jp's request snapshots with
// testdata/compaction/<scenario>.json.
func TestCompactionRequests(t *testing.T) {
	for _, sc := range llmtest.CompactionScenarios {
		t.Run(sc, func(t *testing.T) {
			params, err := buildParams(llm.Request{Model: "claude-haiku-4-5", Messages: llmtest.CompactionHistory(t, sc)}, 0)
			if err != nil {
				t.Fatal(err)
			}
			body, err := json.Marshal(params)
			if err != nil {
				t.Fatal(err)
			}
			var b struct {
				Messages json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(body, &b); err != nil {
				t.Fatal(err)
			}
			llmtest.AssertGolden(t, "compaction/"+sc+".json", b.Messages)
		})
	}
}
