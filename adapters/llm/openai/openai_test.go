package openai

import (
	"context"
	"encoding/json"
	"net/http"
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
	p, err := New(Options{BaseURL: srv.URL + "/v1", APIKey: key, APIKeyEnv: "OPENAI_API_KEY", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func userRequest(text string) llm.Request {
	return llm.Request{Model: "gpt-4o", Messages: []llm.Message{{Role: llm.RoleUser, Text: text}}}
}

func TestStreamText(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	p := newProvider(t, srv, "sk-test")
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), userRequest("hi"), rec.Emit); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Text(), "Hello! How can I help?"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if got := rec.Usages(); len(got) != 1 || got[0] != (llm.Usage{InputTokens: 19, OutputTokens: 10}) {
		t.Errorf("usage = %+v", got)
	}
	if rec.Last() != llm.EventDone || rec.Count(llm.EventDone) != 1 {
		t.Errorf("events do not end with one EventDone: %+v", rec.Events)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		t.Errorf("request %s %s", r.Method, r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
	body := r.JSON(t)
	if body["model"] != "gpt-4o" || body["stream"] != true {
		t.Errorf("model/stream: %v %v", body["model"], body["stream"])
	}
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options = %v", body["stream_options"])
	}
	if _, ok := body["tools"]; ok {
		t.Errorf("tools sent without tools: %v", body["tools"])
	}
}

func TestStreamToolCallsAndHistoryMapping(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "tool_calls.sse")))
	p := newProvider(t, srv, "sk-test")
	req := llm.Request{
		Model: "gpt-4o",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "read a.txt"},
			{Role: llm.RoleAssistant, Text: "Reading.", Reasoning: "hidden", ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "fs_read", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
				{ID: "call_2", Name: "ls", Arguments: nil},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Text: "contents"},
			{Role: llm.RoleTool, ToolCallID: "call_2", Text: "denied", IsError: true},
			{Role: llm.RoleAssistant, Reasoning: "reasoning only"},
			{Role: llm.RoleUser, Text: "and the weather?"},
		},
		Tools: []llm.Tool{
			{Name: "fs_read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "ls"},
		},
	}
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), req, rec.Emit); err != nil {
		t.Fatal(err)
	}
	calls := rec.ToolCalls()
	if len(calls) != 2 {
		t.Fatalf("tool calls = %+v", calls)
	}
	want := []llm.ToolCall{
		{ID: "call_DdmO9pD3xa9XTPNJ32zg2hcA", Name: "get_weather", Arguments: json.RawMessage(`{"location": "Paris, France"}`)},
		{ID: "call_Q4b4Ea8pXfEzuwNZ5hF2Ss8h", Name: "fs_read", Arguments: json.RawMessage(`{"path": "a.txt"}`)},
	}
	for i := range want {
		if calls[i].ID != want[i].ID || calls[i].Name != want[i].Name || string(calls[i].Arguments) != string(want[i].Arguments) {
			t.Errorf("call %d = %+v (args %s), want %+v", i, calls[i], calls[i].Arguments, want[i])
		}
	}
	if u := rec.Usages(); len(u) != 1 || u[0].InputTokens != 82 || u[0].OutputTokens != 37 {
		t.Errorf("usage = %+v", u)
	}
	if rec.Last() != llm.EventDone {
		t.Errorf("last event %v", rec.Last())
	}

	body := srv.Requests()[0].JSON(t)
	wantMsgs := `[
	  {"role":"user","content":"read a.txt"},
	  {"role":"assistant","content":"Reading.","tool_calls":[
	    {"id":"call_1","type":"function","function":{"name":"fs_read","arguments":"{\"path\":\"a.txt\"}"}},
	    {"id":"call_2","type":"function","function":{"name":"ls","arguments":"{}"}}]},
	  {"role":"tool","tool_call_id":"call_1","content":"contents"},
	  {"role":"tool","tool_call_id":"call_2","content":"Error: denied"},
	  {"role":"user","content":"and the weather?"}]`
	llmtest.AssertJSON(t, "messages", body["messages"], wantMsgs)
	wantTools := `[
	  {"type":"function","function":{"name":"fs_read","description":"Read a file",
	    "parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},
	  {"type":"function","function":{"name":"ls","parameters":{"type":"object","properties":{}}}}]`
	llmtest.AssertJSON(t, "tools", body["tools"], wantTools)
}

func TestRateLimitThenSuccess(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.JSONError(http.StatusTooManyRequests,
			`{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			map[string]string{"Retry-After": "7"}),
		llmtest.SSE(llmtest.Fixture(t, "text.sse")),
	)
	p := newProvider(t, srv, "sk-test")

	var rec llmtest.Recorder
	err := p.Stream(context.Background(), userRequest("hi"), rec.Emit)
	e := llmtest.AsError(t, err)
	if e.Kind != llm.ErrorTransient || e.Status != 429 || e.Retry != 7*time.Second || e.Provider != "openai" {
		t.Errorf("error = %+v", e)
	}
	if !strings.Contains(e.Message, "Rate limit reached") {
		t.Errorf("message = %q", e.Message)
	}
	if !llm.IsTransient(err) || len(rec.Events) != 0 {
		t.Errorf("transient=%v events=%v", llm.IsTransient(err), rec.Events)
	}

	rec = llmtest.Recorder{}
	if err := p.Stream(context.Background(), userRequest("hi"), rec.Emit); err != nil {
		t.Fatalf("second call: %v", err)
	}
	if rec.Text() != "Hello! How can I help?" {
		t.Errorf("text = %q", rec.Text())
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests; the SDK must not retry on its own", n)
	}
}

func TestDroppedStream(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp llmtest.Response
	}{
		{"connection cut", llmtest.Response{Header: map[string]string{"Content-Type": "text/event-stream"}, Body: llmtest.Fixture(t, "cut.sse"), Cut: true}},
		{"clean EOF without [DONE]", llmtest.SSE(llmtest.Fixture(t, "cut.sse"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.resp)
			p := newProvider(t, srv, "sk-test")
			var rec llmtest.Recorder
			err := p.Stream(context.Background(), userRequest("hi"), rec.Emit)
			if e := llmtest.AsError(t, err); e.Kind != llm.ErrorTransient {
				t.Errorf("error = %+v", e)
			}
			if rec.Text() != "The first half" {
				t.Errorf("partial text = %q", rec.Text())
			}
			if rec.Count(llm.EventDone) != 0 {
				t.Error("EventDone after a dropped stream")
			}
		})
	}
}

func TestAuthError(t *testing.T) {
	for _, tc := range []struct {
		name, key, want string
	}{
		{"refused key", "sk-bad", "check the API key in OPENAI_API_KEY"},
		{"no key", "", "OPENAI_API_KEY is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.JSONError(http.StatusUnauthorized,
				`{"error":{"message":"Incorrect API key provided: sk-bad.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, nil))
			p := newProvider(t, srv, tc.key)
			err := p.Stream(context.Background(), userRequest("hi"), (&llmtest.Recorder{}).Emit)
			e := llmtest.AsError(t, err)
			if e.Kind != llm.ErrorAuth || e.Status != 401 {
				t.Errorf("error = %+v", e)
			}
			if !strings.Contains(e.Error(), tc.want) || !strings.Contains(e.Error(), "Incorrect API key") {
				t.Errorf("message %q does not contain %q", e.Error(), tc.want)
			}
			if h := srv.Requests()[0].Header.Get("Authorization"); (tc.key == "") != (h == "") {
				t.Errorf("Authorization header = %q with key %q", h, tc.key)
			}
		})
	}
}

func TestFatalErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"openai 400", 400, `{"error":{"message":"Invalid 'messages[1].tool_calls'.","type":"invalid_request_error","param":"messages","code":null}}`, "Invalid 'messages[1].tool_calls'."},
		{"ollama 404", 404, `{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`, `model "llama9" not found`},
		{"llama.cpp string error", 400, `{"error":"the request exceeds the available context size"}`, "exceeds the available context size"},
		{"html page", 404, `<html><body>Not Found</body></html>`, "Not Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.JSONError(tc.status, tc.body, nil))
			p := newProvider(t, srv, "sk-test")
			e := llmtest.AsError(t, p.Stream(context.Background(), userRequest("hi"), (&llmtest.Recorder{}).Emit))
			if e.Kind != llm.ErrorFatal || e.Status != tc.status || !strings.Contains(e.Message, tc.want) {
				t.Errorf("error = %+v, want fatal %d containing %q", e, tc.status, tc.want)
			}
		})
	}
}

func TestServerErrorIsTransient(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.JSONError(503, `{"error":{"message":"The engine is currently overloaded"}}`,
		map[string]string{"Retry-After": time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)}))
	p := newProvider(t, srv, "sk-test")
	e := llmtest.AsError(t, p.Stream(context.Background(), userRequest("hi"), (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorTransient || e.Retry < 25*time.Second || e.Retry > 31*time.Second {
		t.Errorf("error = %+v", e)
	}
}

func TestConnectionRefusedIsTransient(t *testing.T) {
	srv := llmtest.NewServer(t)
	url := srv.URL
	srv.Close()
	p, err := New(Options{BaseURL: url + "/v1", Name: "ollama"})
	if err != nil {
		t.Fatal(err)
	}
	e := llmtest.AsError(t, p.Stream(context.Background(), userRequest("hi"), (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorTransient || e.Provider != "ollama" {
		t.Errorf("error = %+v", e)
	}
}

func TestReasoning(t *testing.T) {
	for _, tc := range []struct{ file, reasoning, text string }{
		{"ollama_reasoning.sse", "Let me think.", "Four."},
		{"deepseek_reasoning.sse", "2+2", "4"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, tc.file)))
			p := newProvider(t, srv, "")
			var rec llmtest.Recorder
			if err := p.Stream(context.Background(), userRequest("2+2?"), rec.Emit); err != nil {
				t.Fatal(err)
			}
			if rec.Reasoning() != tc.reasoning || rec.Text() != tc.text {
				t.Errorf("reasoning %q text %q", rec.Reasoning(), rec.Text())
			}
			if rec.Events[0].Kind != llm.EventReasoningDelta {
				t.Errorf("first event %v, want reasoning", rec.Events[0].Kind)
			}
			if len(rec.Usages()) != 1 || rec.Last() != llm.EventDone {
				t.Errorf("events %+v", rec.Events)
			}
		})
	}
}
