package openai

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
)

func TestLengthStopUsageAndParams(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "length.sse")))
	req := userRequest("a long story")
	req.Model = "o4-mini"
	temp, topP := 0.5, 0.8
	req.Tools = []llm.Tool{{Name: "fs_read"}}
	req.Params = llm.Params{MaxTokens: 64, Temperature: &temp, TopP: &topP, Stop: []string{"THE END", "FIN"},
		Reasoning: llm.Reasoning{Level: llm.ReasoningHigh}, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "fs_read"}}
	var rec llmtest.Recorder
	if err := newProvider(t, srv, "k").Stream(context.Background(), req, rec.Emit); err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 1524, OutputTokens: 64, ReasoningTokens: 48, CacheReadTokens: 1280}
	if u := rec.Usages(); len(u) != 1 || u[0] != want {
		t.Errorf("usage = %+v, want %+v", u, want)
	}
	if last := rec.Events[len(rec.Events)-1]; last.Kind != llm.EventDone || last.Stop != llm.StopLength {
		t.Errorf("last event = %+v", last)
	}
	body := srv.Requests()[0].JSON(t)
	// An OpenAI-compatible server (not api.openai.com) gets max_tokens.
	if body["max_tokens"] != float64(64) || body["temperature"] != 0.5 || body["top_p"] != 0.8 || body["reasoning_effort"] != "high" {
		t.Errorf("max_tokens %v temperature %v top_p %v reasoning_effort %v", body["max_tokens"], body["temperature"], body["top_p"], body["reasoning_effort"])
	}
	if _, ok := body["max_completion_tokens"]; ok {
		t.Error("max_completion_tokens sent to a compatible server")
	}
	llmtest.AssertJSON(t, "stop", body["stop"], `["THE END","FIN"]`)
	llmtest.AssertJSON(t, "tool_choice", body["tool_choice"], `{"type":"function","function":{"name":"fs_read"}}`)
	llmtest.AssertJSON(t, "stream_options", body["stream_options"], `{"include_usage":true}`)
}

func TestOfficialAPIParams(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      llm.Params
		fields string
	}{
		{"max_completion_tokens and effort", llm.Params{MaxTokens: 100, Reasoning: llm.Reasoning{Budget: 10000}},
			`{"max_completion_tokens":100,"reasoning_effort":"medium"}`},
		{"off is effort none", llm.Params{Reasoning: llm.Reasoning{Level: llm.ReasoningOff}, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceRequired}},
			`{"reasoning_effort":"none","tool_choice":"required"}`},
		{"auto leaves the model's default", llm.Params{Reasoning: llm.Reasoning{Level: llm.ReasoningAuto}}, `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params, extra, err := buildParams(llm.Request{Model: "o4-mini", Params: tc.p}, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(extra) != 0 {
				t.Errorf("extra fields for OpenAI: %v", extra)
			}
			b, _ := json.Marshal(params)
			var body map[string]any
			_ = json.Unmarshal(b, &body)
			for _, k := range []string{"model", "messages", "stream_options"} {
				delete(body, k)
			}
			llmtest.AssertJSON(t, "params", body, tc.fields)
		})
	}
	_, extra, _ := buildParams(llm.Request{Model: "qwen3", Params: llm.Params{Reasoning: llm.Reasoning{Level: llm.ReasoningOff}}}, false)
	b, _ := json.Marshal(extra)
	llmtest.AssertJSON(t, "compatible off", extra, `{"chat_template_kwargs":{"enable_thinking":false}}`)
	_ = b
}

func TestStructuredOutputStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "structured.sse")))
	req := userRequest("title for: weather in Paris")
	req.Schema = json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}`)
	var rec llmtest.Recorder
	if err := newProvider(t, srv, "k").Stream(context.Background(), req, rec.Emit); err != nil {
		t.Fatal(err)
	}
	if rec.Text() != `{"title":"Weather in Paris"}` {
		t.Errorf("text = %q", rec.Text())
	}
	llmtest.AssertJSON(t, "response_format", srv.Requests()[0].JSON(t)["response_format"],
		`{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}}}`)
}

func TestImageAndTextAttachments(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	req := userRequest("what is in the picture?")
	req.Messages[0].Attachments = []llm.Attachment{
		{Name: "notes.txt", MediaType: "text/plain", Text: "a note\n"},
		{Name: "pic.png", MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")},
	}
	if err := newProvider(t, srv, "k").Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSON(t, "messages", srv.Requests()[0].JSON(t)["messages"], `[
	  {"role":"user","content":[
	    {"type":"text","text":"<attachment source=\"notes.txt\">\na note\n</attachment>"},
	    {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
	    {"type":"text","text":"what is in the picture?"}]}]`)
}
