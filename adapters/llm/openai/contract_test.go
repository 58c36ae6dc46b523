package openai

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
	Name:   "openai",
	KeyEnv: "OPENAI_API_KEY",
	New: func(t testing.TB, baseURL string, hc *http.Client, key string) ports.Provider {
		p, err := New(Options{BaseURL: baseURL + "/v1", APIKey: key, APIKeyEnv: "OPENAI_API_KEY", HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		return p
	},
	Ext:           "sse",
	Stream:        llmtest.SSE,
	Usage:         llm.Usage{InputTokens: 19, OutputTokens: 10},
	RateLimitBody: `{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 30000, Requested 10.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
	AuthBody:      `{"error":{"message":"Incorrect API key provided: test-***key. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
	ToolResult: func(t testing.TB, body map[string]any) {
		msgs, _ := body["messages"].([]any)
		if len(msgs) != 3 {
			t.Fatalf("messages = %v", msgs)
		}
		llmtest.AssertJSON(t, "tool call", msgs[1],
			`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]}`)
		llmtest.AssertJSON(t, "tool result", msgs[2], `{"role":"tool","tool_call_id":"call_1","content":"18°C and sunny"}`)
	},
}

func TestContract(t *testing.T) { llmcontract.Run(t, contractTarget) }

// longChatStream is a Chat Completions stream of n text deltas.
func longChatStream(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token %d \"},\"finish_reason\":null}]}\n\n", i)
	}
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":4000,"total_tokens":4019}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func BenchmarkStreamParse(b *testing.B) { llmcontract.Bench(b, contractTarget, longChatStream) }
