package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newProvider(t *testing.T, srv *llmtest.Server, key string) *Provider {
	t.Helper()
	p, err := New(Options{BaseURL: srv.URL, APIKey: key, APIKeyEnv: "ANTHROPIC_API_KEY", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func userRequest(text string) llm.Request {
	return llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{{Role: llm.RoleUser, Text: text}}}
}

func TestStreamText(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	p := newProvider(t, srv, "sk-ant-test")
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), userRequest("hi"), rec.Emit); err != nil {
		t.Fatal(err)
	}
	if rec.Text() != "Hello! How can I help?" {
		t.Errorf("text = %q", rec.Text())
	}
	if u := rec.Usages(); len(u) != 1 || u[0] != (llm.Usage{InputTokens: 25, OutputTokens: 15}) {
		t.Errorf("usage = %+v", u)
	}
	if rec.Last() != llm.EventDone || rec.Count(llm.EventDone) != 1 {
		t.Errorf("events = %+v", rec.Events)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-ant-test" || r.Header.Get("Anthropic-Version") == "" {
		t.Errorf("request %s key=%q version=%q", r.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"))
	}
	body := r.JSON(t)
	if body["model"] != "claude-sonnet-4-5" || body["stream"] != true || body["max_tokens"] != float64(64000) {
		t.Errorf("model %v stream %v max_tokens %v", body["model"], body["stream"], body["max_tokens"])
	}
}

func TestStreamToolUseAndHistoryMapping(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "tool_use.sse")))
	p, err := New(Options{BaseURL: srv.URL, APIKey: "k", HTTPClient: srv.Client(), MaxTokens: 1024})
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{
		Model: "claude-sonnet-4-5",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "read a.txt and b.txt"},
			{Role: llm.RoleAssistant, Text: "Reading both.", Reasoning: "not sent", ToolCalls: []llm.ToolCall{
				{ID: "toolu_a", Name: "fs_read", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
				{ID: "toolu_b", Name: "fs_read", Arguments: json.RawMessage(`{"path":"b.txt"}`)},
			}},
			{Role: llm.RoleTool, ToolCallID: "toolu_a", Text: "alpha"},
			{Role: llm.RoleTool, ToolCallID: "toolu_b", Text: "no such file", IsError: true},
			{Role: llm.RoleAssistant, Reasoning: "reasoning only is dropped"},
			{Role: llm.RoleUser, Text: "and the weather?"},
		},
		Tools: []llm.Tool{
			{Name: "get_weather", Description: "Weather for a place", Parameters: json.RawMessage(
				`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}`)},
			{Name: "now"},
		},
	}
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), req, rec.Emit); err != nil {
		t.Fatal(err)
	}
	if rec.Reasoning() != "The user wants the weather." || rec.Text() != "Okay, let's check the weather for San Francisco, CA:" {
		t.Errorf("reasoning %q text %q", rec.Reasoning(), rec.Text())
	}
	calls := rec.ToolCalls()
	if len(calls) != 2 ||
		calls[0].ID != "toolu_01T1x1fJ34qAmk2tNTrN7Up6" || calls[0].Name != "get_weather" ||
		string(calls[0].Arguments) != `{"location": "San Francisco, CA", "unit": "fahrenheit"}` ||
		calls[1].ID != "toolu_02" || calls[1].Name != "now" || string(calls[1].Arguments) != "{}" {
		t.Errorf("calls = %+v", calls)
	}
	if u := rec.Usages(); len(u) != 1 || u[0] != (llm.Usage{InputTokens: 482, OutputTokens: 89, CacheReadTokens: 10}) {
		t.Errorf("usage = %+v", u)
	}

	body := srv.Requests()[0].JSON(t)
	if body["max_tokens"] != float64(1024) {
		t.Errorf("max_tokens = %v", body["max_tokens"])
	}
	llmtest.AssertJSON(t, "messages", body["messages"], `[
	  {"role":"user","content":[{"type":"text","text":"read a.txt and b.txt"}]},
	  {"role":"assistant","content":[
	    {"type":"text","text":"Reading both."},
	    {"type":"tool_use","id":"toolu_a","name":"fs_read","input":{"path":"a.txt"}},
	    {"type":"tool_use","id":"toolu_b","name":"fs_read","input":{"path":"b.txt"}}]},
	  {"role":"user","content":[
	    {"type":"tool_result","tool_use_id":"toolu_a","content":[{"type":"text","text":"alpha"}],"is_error":false},
	    {"type":"tool_result","tool_use_id":"toolu_b","content":[{"type":"text","text":"no such file"}],"is_error":true},
	    {"type":"text","text":"and the weather?"}]}]`)
	llmtest.AssertJSON(t, "tools", body["tools"], `[
	  {"name":"get_weather","description":"Weather for a place","input_schema":{
	    "type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}},
	  {"name":"now","input_schema":{"type":"object","properties":{}}}]`)
}

func TestRateLimitThenSuccess(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.JSONError(429, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			map[string]string{"Retry-After": "12"}),
		llmtest.SSE(llmtest.Fixture(t, "text.sse")),
	)
	p := newProvider(t, srv, "k")
	var rec llmtest.Recorder
	e := llmtest.AsError(t, p.Stream(context.Background(), userRequest("hi"), rec.Emit))
	if e.Kind != llm.ErrorTransient || e.Status != 429 || e.Retry != 12*time.Second || !strings.Contains(e.Message, "rate limit") {
		t.Errorf("error = %+v", e)
	}
	if len(rec.Events) != 0 {
		t.Errorf("events before the error: %+v", rec.Events)
	}
	rec = llmtest.Recorder{}
	if err := p.Stream(context.Background(), userRequest("hi"), rec.Emit); err != nil {
		t.Fatal(err)
	}
	if rec.Text() != "Hello! How can I help?" || len(srv.Requests()) != 2 {
		t.Errorf("text %q after %d requests", rec.Text(), len(srv.Requests()))
	}
}

func TestOverloadedIsTransient(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.JSONError(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, nil))
	e := llmtest.AsError(t, newProvider(t, srv, "k").Stream(context.Background(), userRequest("hi"), (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorTransient || e.Status != 529 || e.Message != "Overloaded" {
		t.Errorf("error = %+v", e)
	}
}

func TestDroppedStream(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp llmtest.Response
	}{
		{"connection cut", llmtest.Response{Header: map[string]string{"Content-Type": "text/event-stream"}, Body: llmtest.Fixture(t, "cut.sse"), Cut: true}},
		{"clean EOF without message_stop", llmtest.SSE(llmtest.Fixture(t, "cut.sse"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.resp)
			var rec llmtest.Recorder
			e := llmtest.AsError(t, newProvider(t, srv, "k").Stream(context.Background(), userRequest("hi"), rec.Emit))
			if e.Kind != llm.ErrorTransient {
				t.Errorf("error = %+v", e)
			}
			if rec.Text() != "The first half" || rec.Count(llm.EventDone) != 0 {
				t.Errorf("text %q, events %+v", rec.Text(), rec.Events)
			}
		})
	}
}

func TestErrorEventInsideStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "overloaded.sse")))
	var rec llmtest.Recorder
	e := llmtest.AsError(t, newProvider(t, srv, "k").Stream(context.Background(), userRequest("hi"), rec.Emit))
	if e.Kind != llm.ErrorTransient || e.Message != "Overloaded" || rec.Text() != "Par" {
		t.Errorf("error = %+v, text %q", e, rec.Text())
	}
}

func TestAuthError(t *testing.T) {
	for _, tc := range []struct{ name, key, want string }{
		{"refused key", "sk-bad", "check the API key in ANTHROPIC_API_KEY"},
		{"no key", "", "ANTHROPIC_API_KEY is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ANTHROPIC_API_KEY", "sk-from-env-must-not-be-used")
			srv := llmtest.NewServer(t, llmtest.JSONError(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, nil))
			e := llmtest.AsError(t, newProvider(t, srv, tc.key).Stream(context.Background(), userRequest("hi"), (&llmtest.Recorder{}).Emit))
			if e.Kind != llm.ErrorAuth || e.Status != 401 || !strings.Contains(e.Error(), tc.want) || !strings.Contains(e.Error(), "invalid x-api-key") {
				t.Errorf("error = %q (%+v)", e.Error(), e)
			}
			if got := srv.Requests()[0].Header.Get("X-Api-Key"); got != tc.key {
				t.Errorf("X-Api-Key = %q, want %q", got, tc.key)
			}
		})
	}
}

func TestBadRequestIsFatal(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.JSONError(400,
		`{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0.tool_use.id: String should match pattern"}}`, nil))
	e := llmtest.AsError(t, newProvider(t, srv, "k").Stream(context.Background(), userRequest("hi"), (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorFatal || e.Status != 400 || !strings.Contains(e.Message, "String should match pattern") {
		t.Errorf("error = %+v", e)
	}
}

func TestCancelIsPrompt(t *testing.T) {
	body := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"c\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"first\"}}\n\n"
	srv := llmtest.NewServer(t, llmtest.Response{Header: map[string]string{"Content-Type": "text/event-stream"}, Body: body, Hold: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	err := newProvider(t, srv, "k").Stream(ctx, userRequest("hi"), func(llm.Event) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("err = %v after %v", err, time.Since(start))
	}
}

func TestStructuredOutputAndBadSchema(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	p := newProvider(t, srv, "k")
	req := userRequest("title")
	req.Schema = json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)
	if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSON(t, "output_config", srv.Requests()[0].JSON(t)["output_config"],
		`{"format":{"type":"json_schema","schema":{"type":"object","properties":{"title":{"type":"string"}}}}}`)

	req.Tools = []llm.Tool{{Name: "bad", Parameters: json.RawMessage(`"string"`)}}
	e := llmtest.AsError(t, p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorFatal || !strings.Contains(e.Message, "bad") {
		t.Errorf("error = %+v", e)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; a bad tool schema must fail before sending", n)
	}
}

func TestConnectionRefusedIsTransient(t *testing.T) {
	srv := llmtest.NewServer(t)
	url := srv.URL
	srv.Close()
	p, err := New(Options{BaseURL: url, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	e := llmtest.AsError(t, p.Stream(context.Background(), userRequest("hi"), (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorTransient || e.Provider != "anthropic" {
		t.Errorf("error = %+v", e)
	}
	if _, err := New(Options{MaxTokens: -1}); err == nil {
		t.Error("negative max tokens accepted")
	}
}

func TestSystemPrompt(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")), llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	p := newProvider(t, srv, "k")
	req := userRequest("hi")
	req.System = "You are terse."
	if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSON(t, "system", srv.Requests()[0].JSON(t)["system"], `[{"type":"text","text":"You are terse."}]`)
	req.System = ""
	if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	if s, ok := srv.Requests()[1].JSON(t)["system"]; ok {
		t.Errorf("system sent without a system prompt: %v", s)
	}
}
