package google

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/llm/llmcontract"
	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const sigB64 = "CiQB0e2Kb3dRh+BYdbZvmulSN2Pwj9S6+aBOf2Qp8RXMi1V6PjAKYgHR7Ypv"

var contractTarget = llmcontract.Target{
	Name:   "google",
	KeyEnv: "GEMINI_API_KEY",
	New: func(t testing.TB, baseURL string, hc *http.Client, key string) ports.Provider {
		p, err := New(Options{BaseURL: baseURL, APIKey: key, APIKeyEnv: "GEMINI_API_KEY", HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		return p
	},
	Ext:                "sse",
	Stream:             llmtest.SSE,
	Usage:              llm.Usage{InputTokens: 8, OutputTokens: 22, ReasoningTokens: 13},
	RateLimitBody:      `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`,
	AuthBody:           `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`,
	NoCallIDs:          true,
	ReasoningSignature: signaturePrefix + sigB64,
	ToolResult: func(t testing.TB, body map[string]any) {
		llmtest.AssertJSON(t, "contents", body["contents"], `[
		  {"role":"user","parts":[{"text":"weather in Paris?"}]},
		  {"role":"model","parts":[{"functionCall":{"id":"call_1","name":"get_weather","args":{"location":"Paris"}},"thoughtSignature":"c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="}]},
		  {"role":"user","parts":[{"functionResponse":{"id":"call_1","name":"get_weather","response":{"output":"18°C and sunny"}}}]}]`)
	},
}

func TestContract(t *testing.T) { llmcontract.Run(t, contractTarget) }

func longStream(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"token %d \"}],\"role\":\"model\"},\"index\":0}],\"modelVersion\":\"gemini-2.5-flash\"}\r\n\r\n", i)
	}
	b.WriteString(`data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":4000}}` + "\r\n\r\n")
	return b.String()
}

func BenchmarkStreamParse(b *testing.B) { llmcontract.Bench(b, contractTarget, longStream) }

func TestRequestMappingAndSignatureReplay(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmcontract.Fixture(t, "text.sse")))
	p, err := New(Options{BaseURL: srv.URL, APIKey: "g-key", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{
		Model: "gemini-2.5-flash", System: "Be terse.",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "weather and time?"},
			{Role: llm.RoleAssistant, Reasoning: "Let me think.", Thinking: []llm.Thinking{{Text: "Let me think.", Signature: signaturePrefix + sigB64}},
				ToolCalls: []llm.ToolCall{
					{ID: "call_0", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
					{ID: "call_1", Name: "get_time", Arguments: json.RawMessage(`{"zone":"Europe/Paris"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_0", Text: "sunny"},
			{Role: llm.RoleTool, ToolCallID: "call_1", Text: "no clock", IsError: true},
		},
		Tools:  []llm.Tool{{Name: "get_weather", Description: "Weather"}},
		Params: llm.Params{MaxTokens: 100, Stop: []string{"END"}, Reasoning: llm.Reasoning{Budget: 2048}, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceRequired}},
	}
	if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || r.Header.Get("X-Goog-Api-Key") != "g-key" {
		t.Errorf("path %s key %q", r.Path, r.Header.Get("X-Goog-Api-Key"))
	}
	body := r.JSON(t)
	llmtest.AssertJSON(t, "contents", body["contents"], `[
	  {"role":"user","parts":[{"text":"weather and time?"}]},
	  {"role":"model","parts":[
	    {"functionCall":{"id":"call_0","name":"get_weather","args":{"location":"Paris"}},"thoughtSignature":"`+sigB64+`"},
	    {"functionCall":{"id":"call_1","name":"get_time","args":{"zone":"Europe/Paris"}}}]},
	  {"role":"user","parts":[
	    {"functionResponse":{"id":"call_0","name":"get_weather","response":{"output":"sunny"}}},
	    {"functionResponse":{"id":"call_1","name":"get_time","response":{"error":"no clock"}}}]}]`)
	llmtest.AssertJSON(t, "systemInstruction", body["systemInstruction"], `{"role":"user","parts":[{"text":"Be terse."}]}`)
	llmtest.AssertJSON(t, "generationConfig", body["generationConfig"],
		`{"maxOutputTokens":100,"stopSequences":["END"],"thinkingConfig":{"includeThoughts":true,"thinkingBudget":2048}}`)
	llmtest.AssertJSON(t, "toolConfig", body["toolConfig"], `{"functionCallingConfig":{"mode":"ANY"}}`)
}

func TestThinkingSwitch(t *testing.T) {
	for _, tc := range []struct {
		r    llm.Reasoning
		want string
	}{
		{llm.Reasoning{Level: llm.ReasoningOff}, `{"thinkingBudget":0}`},
		{llm.Reasoning{Level: llm.ReasoningAuto}, `{"includeThoughts":true,"thinkingBudget":-1}`},
		{llm.Reasoning{Level: llm.ReasoningLow}, `{"includeThoughts":true,"thinkingLevel":"LOW"}`},
		{llm.Reasoning{Level: llm.ReasoningMax}, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`},
		{llm.Reasoning{}, `{"includeThoughts":true}`},
	} {
		_, cfg, err := buildRequest(llm.Request{Params: llm.Params{Reasoning: tc.r}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(cfg.ThinkingConfig)
		var got any
		_ = json.Unmarshal(b, &got)
		llmtest.AssertJSON(t, tc.r.String(), got, tc.want)
	}
}
