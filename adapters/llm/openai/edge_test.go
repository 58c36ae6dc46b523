package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
)

const chunkPrefix = `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,`

func TestEnvironmentKeyDoesNotLeak(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/elsewhere")
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	p := newProvider(t, srv, "")
	if err := p.Stream(context.Background(), userRequest("hi"), (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization = %q; the configured (empty) key must win", h)
	}
}

func TestCancelIsPrompt(t *testing.T) {
	body := chunkPrefix + `"delta":{"content":"first"},"finish_reason":null}]}` + "\n\n"
	srv := llmtest.NewServer(t, llmtest.Response{Header: map[string]string{"Content-Type": "text/event-stream"}, Body: body, Hold: true})
	p := newProvider(t, srv, "sk-test")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rec llmtest.Recorder
	start := time.Now()
	err := p.Stream(ctx, userRequest("hi"), func(e llm.Event) error {
		cancel() // the server holds the stream open; only ctx can end it
		return rec.Emit(e)
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	if rec.Text() != "first" {
		t.Errorf("text = %q", rec.Text())
	}
}

func TestEmitErrorStops(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	p := newProvider(t, srv, "sk-test")
	stop := errors.New("stop")
	n := 0
	err := p.Stream(context.Background(), userRequest("hi"), func(llm.Event) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err = %v after %d events", err, n)
	}
}

func TestErrorInsideStream(t *testing.T) {
	body := chunkPrefix + `"delta":{"content":"par"},"finish_reason":null}]}` + "\n\n" +
		`data: {"error":{"message":"The server had an error while processing your request.","type":"server_error"}}` + "\n\n"
	srv := llmtest.NewServer(t, llmtest.SSE(body))
	p := newProvider(t, srv, "sk-test")
	var rec llmtest.Recorder
	e := llmtest.AsError(t, p.Stream(context.Background(), userRequest("hi"), rec.Emit))
	if e.Kind != llm.ErrorTransient || !strings.Contains(e.Message, "server had an error") || rec.Text() != "par" {
		t.Errorf("error = %+v, text %q", e, rec.Text())
	}
}

func TestToolCallWithoutIDAndFinishWithoutDone(t *testing.T) {
	// Some local servers send no call ID, and a stream that loses its
	// connection after finish_reason has lost only the usage chunk.
	body := chunkPrefix + `"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"now","arguments":""}}]},"finish_reason":null}]}` + "\n\n" +
		chunkPrefix + `"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n"
	srv := llmtest.NewServer(t, llmtest.Response{Header: map[string]string{"Content-Type": "text/event-stream"}, Body: body, Cut: true})
	p := newProvider(t, srv, "")
	p.newID = func() string { return "call_generated" }
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), userRequest("time?"), rec.Emit); err != nil {
		t.Fatal(err)
	}
	calls := rec.ToolCalls()
	if len(calls) != 1 || calls[0].ID != "call_generated" || calls[0].Name != "now" || string(calls[0].Arguments) != "{}" {
		t.Errorf("calls = %+v", calls)
	}
	if rec.Last() != llm.EventDone {
		t.Errorf("last = %v", rec.Last())
	}
}

func TestInvalidToolArgumentsAreFatal(t *testing.T) {
	body := chunkPrefix + `"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"fs_read","arguments":"{\"path\": "}}]},"finish_reason":"tool_calls"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	srv := llmtest.NewServer(t, llmtest.SSE(body))
	p := newProvider(t, srv, "")
	e := llmtest.AsError(t, p.Stream(context.Background(), userRequest("x"), (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorFatal || !strings.Contains(e.Message, "fs_read") {
		t.Errorf("error = %+v", e)
	}
}

func TestStructuredOutputSchema(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	p := newProvider(t, srv, "sk-test")
	req := userRequest("titles")
	req.Schema = json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)
	if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].JSON(t)
	llmtest.AssertJSON(t, "response_format", body["response_format"],
		`{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object","properties":{"title":{"type":"string"}}}}}`)
}

func TestBadToolSchemaIsFatalWithoutRequest(t *testing.T) {
	srv := llmtest.NewServer(t)
	p := newProvider(t, srv, "sk-test")
	req := userRequest("x")
	req.Tools = []llm.Tool{{Name: "broken", Parameters: json.RawMessage(`[1,2]`)}}
	e := llmtest.AsError(t, p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorFatal || !strings.Contains(e.Message, "broken") {
		t.Errorf("error = %+v", e)
	}
}

func TestNewRejectsBadBaseURL(t *testing.T) {
	if _, err := New(Options{BaseURL: "127.0.0.1:11434/v1", Name: "ollama"}); err == nil || !strings.Contains(err.Error(), "ollama") {
		t.Errorf("err = %v", err)
	}
}

func TestNonStreamingAnswerIsFatal(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.JSONError(200, `{"id":"x","object":"chat.completion","choices":[]}`, nil))
	e := llmtest.AsError(t, newProvider(t, srv, "").Stream(context.Background(), userRequest("x"), (&llmtest.Recorder{}).Emit))
	if e.Kind != llm.ErrorFatal || !strings.Contains(e.Message, "without streaming") {
		t.Errorf("error = %+v", e)
	}
}

func TestSystemPromptComesFirst(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	p := newProvider(t, srv, "sk-test")
	req := userRequest("hi")
	req.System = "You are terse.\nAnswer in one line."
	if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	msgs, _ := srv.Requests()[0].JSON(t)["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages = %v", msgs)
	}
	llmtest.AssertJSON(t, "system message", msgs[0], `{"role":"system","content":"You are terse.\nAnswer in one line."}`)
	if m, _ := msgs[1].(map[string]any); m["role"] != "user" {
		t.Errorf("second message = %v", msgs[1])
	}
}
