package anthropic

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/llm/llmcontract"
	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

var contractTarget = llmcontract.Target{
	Name:   "anthropic",
	KeyEnv: "ANTHROPIC_API_KEY",
	New: func(t testing.TB, baseURL string, hc *http.Client, key string) ports.Provider {
		p, err := New(Options{BaseURL: baseURL, APIKey: key, APIKeyEnv: "ANTHROPIC_API_KEY", HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		return p
	},
	Ext:                "sse",
	Stream:             llmtest.SSE,
	Usage:              llm.Usage{InputTokens: 25, OutputTokens: 15},
	RateLimitBody:      `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
	AuthBody:           `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
	ReasoningSignature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
	ToolResult: func(t testing.TB, body map[string]any) {
		msgs, _ := body["messages"].([]any)
		if len(msgs) != 3 {
			t.Fatalf("messages = %v", msgs)
		}
		llmtest.AssertJSON(t, "tool result", msgs[2],
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","is_error":false,"content":[{"type":"text","text":"18°C and sunny"}]}]}`)
	},
}

func TestContract(t *testing.T) { llmcontract.Run(t, contractTarget) }

// longStream is a Messages stream of n text deltas.
func longStream(n int) string {
	var b strings.Builder
	b.WriteString(`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","usage":{"input_tokens":25,"output_tokens":1}}}` + "\n\n")
	b.WriteString(`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"token %d \"}}\n\n", i)
	}
	b.WriteString(`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}` + "\n\n")
	b.WriteString(`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4000}}` + "\n\n")
	b.WriteString(`event: message_stop` + "\n" + `data: {"type":"message_stop"}` + "\n\n")
	return b.String()
}

func BenchmarkStreamParse(b *testing.B) { llmcontract.Bench(b, contractTarget, longStream) }
