package ollama

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

func ndjson(body string) llmtest.Response {
	return llmtest.Response{Status: http.StatusOK, Header: map[string]string{"Content-Type": "application/x-ndjson"}, Body: body}
}

var contractTarget = llmcontract.Target{
	Name:   "ollama",
	KeyEnv: "OLLAMA_API_KEY",
	New: func(t testing.TB, baseURL string, hc *http.Client, key string) ports.Provider {
		p, err := New(Options{BaseURL: baseURL, APIKey: key, APIKeyEnv: "OLLAMA_API_KEY", HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		return p
	},
	Ext:           "ndjson",
	Stream:        ndjson,
	Usage:         llm.Usage{InputTokens: 26, OutputTokens: 298},
	RateLimitBody: `{"error":"you (jp) have reached your hourly usage limit, please upgrade to continue"}`,
	AuthBody:      `{"error":"unauthorized"}`,
	NoCallIDs:     true,
	ToolResult: func(t testing.TB, body map[string]any) {
		llmtest.AssertJSON(t, "messages", body["messages"], `[
		  {"role":"user","content":"weather in Paris?"},
		  {"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"location":"Paris"}}}]},
		  {"role":"tool","content":"18°C and sunny","tool_name":"get_weather"}]`)
	},
}

func TestContract(t *testing.T) { llmcontract.Run(t, contractTarget) }

func longStream(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"model":"qwen3","created_at":"2025-10-06T10:00:00Z","message":{"role":"assistant","content":"token %d "},"done":false}`+"\n", i)
	}
	b.WriteString(`{"model":"qwen3","created_at":"2025-10-06T10:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":26,"eval_count":4000}` + "\n")
	return b.String()
}

func BenchmarkStreamParse(b *testing.B) { llmcontract.Bench(b, contractTarget, longStream) }

func TestRequestMapping(t *testing.T) {
	srv := llmtest.NewServer(t, ndjson(llmcontract.Fixture(t, "text.ndjson")))
	p, err := New(Options{BaseURL: srv.URL + "/v1/", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	temp := 0.2
	req := llm.Request{
		Model: "gpt-oss:20b", System: "Be terse.",
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "what is it?", Attachments: []llm.Attachment{
			{Name: "a.txt", MediaType: "text/plain", Text: "note"},
			{Name: "p.png", MediaType: "image/png", Data: []byte("\x89PNG")},
		}}},
		Schema: json.RawMessage(`{"type":"object"}`),
		Params: llm.Params{MaxTokens: 100, Temperature: &temp, Stop: []string{"END"}, Reasoning: llm.Reasoning{Level: llm.ReasoningHigh}},
	}
	if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/api/chat" || r.Header.Get("Authorization") != "" {
		t.Errorf("path %s auth %q", r.Path, r.Header.Get("Authorization"))
	}
	body := r.JSON(t)
	llmtest.AssertJSON(t, "body", body, `{"model":"gpt-oss:20b","stream":true,"think":"high","format":{"type":"object"},
	  "options":{"num_predict":100,"temperature":0.2,"stop":["END"]},
	  "messages":[{"role":"system","content":"Be terse."},
	    {"role":"user","content":"<attachment source=\"a.txt\">\nnote\n</attachment>\n\nwhat is it?","images":["iVBORw=="]}]}`)
}

func TestThinkSwitch(t *testing.T) {
	for _, tc := range []struct {
		model string
		r     llm.Reasoning
		want  any
	}{
		{"qwen3", llm.Reasoning{}, nil},
		{"qwen3", llm.Reasoning{Level: llm.ReasoningAuto}, nil},
		{"qwen3", llm.Reasoning{Level: llm.ReasoningOff}, false},
		{"qwen3", llm.Reasoning{Level: llm.ReasoningLow}, true},
		{"gpt-oss:120b", llm.Reasoning{Budget: 1000}, "low"},
		{"gpt-oss:120b", llm.Reasoning{Level: llm.ReasoningMax}, "high"},
	} {
		cr := chatRequest{Model: tc.model}
		applyParams(&cr, llm.Params{Reasoning: tc.r})
		if cr.Think != tc.want {
			t.Errorf("%s %+v: think = %v, want %v", tc.model, tc.r, cr.Think, tc.want)
		}
	}
}

func TestNoServerFailsAtOnce(t *testing.T) {
	srv := llmtest.NewServer(t)
	url := srv.URL
	srv.Close()
	p, err := New(Options{BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	e := llmtest.AsError(t, p.Stream(context.Background(), llm.Request{Model: "qwen3"}, (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorFatal || !strings.Contains(e.Message, "no server is listening at "+url) || !strings.Contains(e.Message, "ollama serve") {
		t.Errorf("error = %+v; want a fatal error (no retries) saying how to start the server", e)
	}
}

func TestModelNotFound(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.JSONError(404, `{"error":"model \"llama9\" not found, try pulling it first"}`, nil))
	p, _ := New(Options{BaseURL: srv.URL, HTTPClient: srv.Client()})
	e := llmtest.AsError(t, p.Stream(context.Background(), llm.Request{Model: "llama9"}, (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorFatal || !strings.Contains(e.Message, "try pulling it first") {
		t.Errorf("error = %+v", e)
	}
}

func TestCutStreamIsTransient(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Response{Body: `{"model":"m","message":{"role":"assistant","content":"half"},"done":false}` + "\n", Cut: true})
	p, _ := New(Options{BaseURL: srv.URL, HTTPClient: srv.Client()})
	var rec llmtest.Recorder
	e := llmtest.AsError(t, p.Stream(context.Background(), llm.Request{Model: "m"}, rec.Emit))
	if e.Kind != llm.ErrorTransient || rec.Text() != "half" {
		t.Errorf("error = %+v text %q", e, rec.Text())
	}
}
