package google

import (
	"encoding/json"
	"testing"

	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
)

// TestCompactionRequests compares the contents of the request built for
// each compaction scenario of the Rust jp's request snapshots with
// testdata/compaction/<scenario>.json.
func TestCompactionRequests(t *testing.T) {
	for _, sc := range llmtest.CompactionScenarios {
		t.Run(sc, func(t *testing.T) {
			contents, _, err := buildRequest(llm.Request{Model: "gemini-2.5-flash", Messages: llmtest.CompactionHistory(t, sc)})
			if err != nil {
				t.Fatal(err)
			}
			body, err := json.Marshal(contents)
			if err != nil {
				t.Fatal(err)
			}
			llmtest.AssertGolden(t, "compaction/"+sc+".json", body)
		})
	}
}
