package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/jpcli/jp/adapters/llm/llmcontract"
	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

const openRouterSignature = `openrouter:[{"format":"anthropic-claude-v1","index":0,"signature":"ErUBCkYIBRgCIkDx","text":"Let me think.","type":"reasoning.text"}]`

var openRouterTarget = llmcontract.Target{
	Name:   "openrouter",
	KeyEnv: "OPENROUTER_API_KEY",
	New: func(t testing.TB, baseURL string, hc *http.Client, key string) ports.Provider {
		p, err := New(Options{BaseURL: baseURL + "/api/v1", APIKey: key, APIKeyEnv: "OPENROUTER_API_KEY", HTTPClient: hc, Name: "openrouter", Dialect: DialectOpenRouter})
		if err != nil {
			t.Fatal(err)
		}
		return p
	},
	Ext:                "sse",
	Dir:                "openrouter",
	Stream:             llmtest.SSE,
	Usage:              llm.Usage{InputTokens: 14, OutputTokens: 9},
	RateLimitBody:      `{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-min."}}`,
	AuthBody:           `{"error":{"code":401,"message":"No auth credentials found"}}`,
	ReasoningSignature: openRouterSignature,
}

func TestOpenRouterContract(t *testing.T) { llmcontract.Run(t, openRouterTarget) }

func TestDialectReasoningSwitch(t *testing.T) {
	for _, tc := range []struct {
		d      Dialect
		r      llm.Reasoning
		fields string
	}{
		{DialectOpenRouter, llm.Reasoning{Level: llm.ReasoningHigh}, `{"reasoning":{"effort":"high"}}`},
		{DialectOpenRouter, llm.Reasoning{Level: llm.ReasoningOff}, `{"reasoning":{"effort":"none"}}`},
		{DialectOpenRouter, llm.Reasoning{Level: llm.ReasoningAuto}, `{"reasoning":{"enabled":true}}`},
		{DialectOpenRouter, llm.Reasoning{Budget: 3000}, `{"reasoning":{"max_tokens":3000}}`},
		{DialectOpenRouter, llm.Reasoning{Level: llm.ReasoningMax}, `{"reasoning":{"effort":"xhigh"}}`},
		{DialectLlamaCpp, llm.Reasoning{Level: llm.ReasoningOff}, `{"chat_template_kwargs":{"enable_thinking":false}}`},
		{DialectLlamaCpp, llm.Reasoning{Level: llm.ReasoningLow}, `{"chat_template_kwargs":{"enable_thinking":true,"reasoning_effort":"low"}}`},
		{DialectCerebras, llm.Reasoning{Level: llm.ReasoningOff}, `{"disable_reasoning":true}`},
		{DialectCerebras, llm.Reasoning{Level: llm.ReasoningMedium}, `{"reasoning_effort":"medium"}`},
		{DialectDeepSeek, llm.Reasoning{Level: llm.ReasoningOff}, `{"thinking":{"type":"disabled"}}`},
		{DialectDeepSeek, llm.Reasoning{Level: llm.ReasoningHigh}, `{"thinking":{"type":"enabled"},"reasoning_effort":"high"}`},
		{DialectDeepSeek, llm.Reasoning{Level: llm.ReasoningMax}, `{"thinking":{"type":"enabled"},"reasoning_effort":"max"}`},
		{DialectDeepSeek, llm.Reasoning{}, `{}`},
	} {
		t.Run(string(tc.d)+" "+tc.r.String(), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.SSE(llmcontract.Fixture(t, "text.sse")))
			p, err := New(Options{BaseURL: srv.URL, HTTPClient: srv.Client(), Name: string(tc.d), Dialect: tc.d})
			if err != nil {
				t.Fatal(err)
			}
			req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}, Params: llm.Params{Reasoning: tc.r}}
			if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
				t.Fatal(err)
			}
			body := srv.Requests()[0].JSON(t)
			for _, k := range []string{"model", "messages", "stream", "stream_options"} {
				delete(body, k)
			}
			llmtest.AssertJSON(t, "reasoning fields", body, tc.fields)
		})
	}
}

// history is a turn that reasoned, then called a tool, then got its
// result: what the services that need reasoning back must see.
func history(signature string) []llm.Message {
	return []llm.Message{
		{Role: llm.RoleUser, Text: "weather?"},
		{Role: llm.RoleAssistant, Reasoning: "Let me think.", Thinking: []llm.Thinking{{Text: "Let me think.", Signature: signature}},
			ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "call_1", Text: "sunny"},
	}
}

func TestReasoningGoesBackInHistory(t *testing.T) {
	for _, tc := range []struct {
		d         Dialect
		signature string
		assistant string
	}{
		{DialectDeepSeek, "", `{"role":"assistant","reasoning_content":"Let me think.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]}`},
		{DialectOpenRouter, openRouterSignature, `{"role":"assistant","reasoning_details":[{"format":"anthropic-claude-v1","index":0,"signature":"ErUBCkYIBRgCIkDx","text":"Let me think.","type":"reasoning.text"}],"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]}`},
		// Another provider's signature is not OpenRouter's.
		{DialectOpenRouter, "EqQBCgIYAhIM", `{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]}`},
		{DialectGeneric, openRouterSignature, `{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]}`},
	} {
		t.Run(string(tc.d), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.SSE(llmcontract.Fixture(t, "text.sse")))
			p, _ := New(Options{BaseURL: srv.URL, HTTPClient: srv.Client(), Dialect: tc.d})
			req := llm.Request{Model: "m", System: "sys", Messages: history(tc.signature)}
			if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
				t.Fatal(err)
			}
			msgs, _ := srv.Requests()[0].JSON(t)["messages"].([]any)
			if len(msgs) != 4 {
				t.Fatalf("messages = %v", msgs)
			}
			llmtest.AssertJSON(t, "system", msgs[0], `{"role":"system","content":"sys"}`)
			llmtest.AssertJSON(t, "assistant", msgs[2], tc.assistant)
		})
	}
}

func TestCerebrasReasoningField(t *testing.T) {
	body := chunkPrefix + `"delta":{"role":"assistant","reasoning":"Let me think."},"finish_reason":null}]}` + "\n\n" +
		chunkPrefix + `"delta":{"content":"Four."},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n"
	srv := llmtest.NewServer(t, llmtest.SSE(body))
	p, _ := New(Options{BaseURL: srv.URL, HTTPClient: srv.Client(), Name: "cerebras", Dialect: DialectCerebras})
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), llm.Request{Model: "gpt-oss-120b"}, rec.Emit); err != nil {
		t.Fatal(err)
	}
	if rec.Reasoning() != "Let me think." || rec.Text() != "Four." || rec.Count(llm.EventReasoningSignature) != 0 {
		t.Errorf("events %+v", rec.Events)
	}
}
