package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/llm/llmcontract"
	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

const responsesSignature = `openai-responses:{"encrypted_content":"gAAAAABoIPOE7pzkN3ZKyQ2uBcArH6jvmdhiVDVl6GZNDeRZ0tI","id":"rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7"}`

var responsesTarget = llmcontract.Target{
	Name:   "openai",
	KeyEnv: "OPENAI_API_KEY",
	New: func(t testing.TB, baseURL string, hc *http.Client, key string) ports.Provider {
		p, err := NewResponses(Options{BaseURL: baseURL + "/v1", APIKey: key, APIKeyEnv: "OPENAI_API_KEY", HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		return p
	},
	Ext:                "sse",
	Dir:                "responses",
	Stream:             llmtest.SSE,
	Usage:              llm.Usage{InputTokens: 36, OutputTokens: 87},
	RateLimitBody:      contractTarget.RateLimitBody,
	AuthBody:           contractTarget.AuthBody,
	ReasoningSignature: responsesSignature,
	ToolResult: func(t testing.TB, body map[string]any) {
		llmtest.AssertJSON(t, "input", body["input"], `[
		  {"role":"user","content":"weather in Paris?"},
		  {"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"location\":\"Paris\"}"},
		  {"type":"function_call_output","call_id":"call_1","output":"18°C and sunny"}]`)
		if body["store"] != false {
			t.Errorf("store = %v", body["store"])
		}
	},
}

func TestResponsesContract(t *testing.T) { llmcontract.Run(t, responsesTarget) }

func longResponsesStream(n int) string {
	var b strings.Builder
	b.WriteString(`event: response.created` + "\n" + `data: {"type":"response.created","response":{"id":"resp_1","status":"in_progress","model":"gpt-5"}}` + "\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"token %d \"}\n\n", i)
	}
	b.WriteString(`event: response.completed` + "\n" + `data: {"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5","usage":{"input_tokens":36,"output_tokens":4000}}}` + "\n\n")
	return b.String()
}

func BenchmarkResponsesStreamParse(b *testing.B) {
	llmcontract.Bench(b, responsesTarget, longResponsesStream)
}

func TestResponsesRequestAndReplay(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmcontract.StripHeader(llmtest.Fixture(t, "responses/text.sse"))))
	p, err := NewResponses(Options{BaseURL: srv.URL + "/v1", APIKey: "k", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	temp := 0.3
	req := llm.Request{
		Model: "gpt-5", System: "Be terse.",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "look", Attachments: []llm.Attachment{{Name: "p.png", MediaType: "image/png", Data: []byte("\x89PNG")}}},
			{Role: llm.RoleAssistant, Text: "Checking.", Reasoning: "Let me think.", Thinking: []llm.Thinking{
				{Text: "Let me think.", Signature: responsesSignature},
				{Text: "Anthropic's", Signature: "EqQBCgIYAhIM"},
			}, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Text: "denied", IsError: true},
		},
		Tools:  []llm.Tool{{Name: "get_weather", Description: "Weather"}},
		Schema: json.RawMessage(`{"type":"object"}`),
		Params: llm.Params{MaxTokens: 500, Temperature: &temp, Reasoning: llm.Reasoning{Level: llm.ReasoningHigh}, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "get_weather"}},
	}
	if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/responses" {
		t.Errorf("path %s", r.Path)
	}
	body := r.JSON(t)
	llmtest.AssertJSON(t, "body", body, `{
	  "model":"gpt-5","stream":true,"store":false,"instructions":"Be terse.",
	  "max_output_tokens":500,"temperature":0.3,
	  "reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"],
	  "text":{"format":{"type":"json_schema","name":"response","schema":{"type":"object"}}},
	  "tool_choice":{"type":"function","name":"get_weather"},
	  "tools":[{"type":"function","name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{}},"strict":false}],
	  "input":[
	    {"role":"user","content":[{"type":"input_image","detail":"auto","image_url":"data:image/png;base64,iVBORw=="},{"type":"input_text","text":"look"}]},
	    {"type":"reasoning","id":"rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7","encrypted_content":"gAAAAABoIPOE7pzkN3ZKyQ2uBcArH6jvmdhiVDVl6GZNDeRZ0tI","summary":[{"type":"summary_text","text":"Let me think."}]},
	    {"role":"assistant","content":"Checking."},
	    {"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"location\":\"Paris\"}"},
	    {"type":"function_call_output","call_id":"call_1","output":"Error: denied"}]}`)
}

func TestResponsesUsageDetailsAndFailure(t *testing.T) {
	body := `event: response.completed` + "\n" + `data: {"type":"response.completed","response":{"model":"o4-mini","usage":{"input_tokens":1524,"input_tokens_details":{"cached_tokens":1280},"output_tokens":64,"output_tokens_details":{"reasoning_tokens":48}}}}` + "\n\n"
	srv := llmtest.NewServer(t, llmtest.SSE(body),
		llmtest.SSE(`event: response.failed`+"\n"+`data: {"type":"response.failed","response":{"status":"failed","error":{"code":"invalid_prompt","message":"Invalid prompt: flagged."}}}`+"\n\n"))
	p, _ := NewResponses(Options{BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), llm.Request{Model: "o4-mini"}, rec.Emit); err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 1524, OutputTokens: 64, ReasoningTokens: 48, CacheReadTokens: 1280}
	if u := rec.Usages(); len(u) != 1 || u[0] != want {
		t.Errorf("usage = %+v", u)
	}
	if last := rec.Events[len(rec.Events)-1]; last.Stop != llm.StopEnd || last.Model != "o4-mini" {
		t.Errorf("done = %+v", last)
	}
	e := llmtest.AsError(t, p.Stream(context.Background(), llm.Request{Model: "o4-mini"}, (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorFatal || !strings.Contains(e.Message, "flagged") {
		t.Errorf("error = %+v", e)
	}
}
