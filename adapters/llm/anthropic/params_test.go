package anthropic

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
)

// Thinking with a budget across a tool call: the first call streams a
// signed thinking block and a tool use; the second sends the signed block
// back before the tool use, as the API requires with tool use.
func TestThinkingSignaturesAcrossToolCall(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "tool_use.sse")), llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	p := newProvider(t, srv, "k")
	req := userRequest("weather in SF?")
	req.Params = llm.Params{Reasoning: llm.Reasoning{Budget: 2048}, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceAuto}}
	req.Tools = []llm.Tool{{Name: "get_weather"}}
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), req, rec.Emit); err != nil {
		t.Fatal(err)
	}
	var sig string
	for _, e := range rec.Events {
		if e.Kind == llm.EventReasoningSignature {
			sig += e.Text
		}
	}
	if sig != "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" {
		t.Errorf("signature = %q", sig)
	}
	if last := rec.Events[len(rec.Events)-1]; last.Kind != llm.EventDone || last.Stop != llm.StopToolUse {
		t.Errorf("last event = %+v", last)
	}
	body := srv.Requests()[0].JSON(t)
	llmtest.AssertJSON(t, "thinking", body["thinking"], `{"type":"enabled","budget_tokens":2048}`)
	llmtest.AssertJSON(t, "tool_choice", body["tool_choice"], `{"type":"auto"}`)
	if body["max_tokens"] != float64(64000) {
		t.Errorf("max_tokens = %v, want the model's maximum", body["max_tokens"])
	}
	for _, k := range []string{"temperature", "top_p", "stop_sequences", "output_config"} {
		if v, ok := body[k]; ok {
			t.Errorf("%s sent unasked: %v", k, v)
		}
	}

	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, Text: "Checking.", Reasoning: "The user wants the weather.",
			Thinking:  []llm.Thinking{{Text: "The user wants the weather.", Signature: sig}, {Text: "unsigned: from another provider"}, {Text: "OpenAI encrypted reasoning", Signature: "openai-responses:gAAAAB"}},
			ToolCalls: []llm.ToolCall{{ID: "toolu_01", Name: "get_weather", Arguments: json.RawMessage(`{"location":"SF"}`)}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_01", Text: "15 C"})
	if err := p.Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSON(t, "messages", srv.Requests()[1].JSON(t)["messages"], `[
	  {"role":"user","content":[{"type":"text","text":"weather in SF?"}]},
	  {"role":"assistant","content":[
	    {"type":"thinking","thinking":"The user wants the weather.","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
	    {"type":"text","text":"Checking."},
	    {"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"location":"SF"}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"15 C"}],"is_error":false}]}]`)
}

func TestLengthStopAndUsage(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "max_tokens.sse")))
	p := newProvider(t, srv, "k")
	req := userRequest("a long story")
	temp, topP := 0.2, 0.9
	req.Params = llm.Params{MaxTokens: 16, Temperature: &temp, TopP: &topP, Stop: []string{"THE END"}}
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), req, rec.Emit); err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 4225, OutputTokens: 16, CacheReadTokens: 3000, CacheWriteTokens: 1200}
	if u := rec.Usages(); len(u) != 1 || u[0] != want {
		t.Errorf("usage = %+v, want %+v", u, want)
	}
	if last := rec.Events[len(rec.Events)-1]; last.Kind != llm.EventDone || last.Stop != llm.StopLength {
		t.Errorf("last event = %+v", last)
	}
	body := srv.Requests()[0].JSON(t)
	if body["max_tokens"] != float64(16) || body["temperature"] != 0.2 || body["top_p"] != 0.9 {
		t.Errorf("max_tokens %v temperature %v top_p %v", body["max_tokens"], body["temperature"], body["top_p"])
	}
	llmtest.AssertJSON(t, "stop_sequences", body["stop_sequences"], `["THE END"]`)
	if _, ok := body["thinking"]; ok {
		t.Errorf("thinking sent unasked: %v", body["thinking"])
	}
}

// A continued response ends the history with the assistant's partial
// text: its trailing whitespace is trimmed (the API refuses it).
func TestContinuationTrimsTrailingWhitespace(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	req := userRequest("go on")
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Text: "Once upon a time \n"})
	if err := newProvider(t, srv, "k").Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSON(t, "messages", srv.Requests()[0].JSON(t)["messages"], `[
	  {"role":"user","content":[{"type":"text","text":"go on"}]},
	  {"role":"assistant","content":[{"type":"text","text":"Once upon a time"}]}]`)
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
	llmtest.AssertJSON(t, "output_config", srv.Requests()[0].JSON(t)["output_config"],
		`{"format":{"type":"json_schema","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}}}`)
}

func TestImageAndTextAttachments(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Fixture(t, "text.sse")))
	req := userRequest("what is in the picture?")
	req.Messages[0].Attachments = []llm.Attachment{
		{Name: "notes.txt", MediaType: "text/plain", Text: "a note"},
		{Name: "pic.png", MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")},
	}
	if err := newProvider(t, srv, "k").Stream(context.Background(), req, (&llmtest.Recorder{}).Emit); err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSON(t, "messages", srv.Requests()[0].JSON(t)["messages"], `[
	  {"role":"user","content":[
	    {"type":"text","text":"<attachment source=\"notes.txt\">\na note\n</attachment>"},
	    {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
	    {"type":"text","text":"what is in the picture?"}]}]`)
}

func TestReasoningLevels(t *testing.T) {
	for _, tc := range []struct {
		name, model string
		r           llm.Reasoning
		maxTokens   int
		thinking    string
		effort      string
	}{
		{"off", "claude-sonnet-4-5", llm.Reasoning{Level: llm.ReasoningOff}, 0, `{"type":"disabled"}`, ""},
		{"high on a budget model", "claude-sonnet-4-5", llm.Reasoning{Level: llm.ReasoningHigh}, 0, `{"type":"enabled","budget_tokens":32768}`, ""},
		{"max is max_tokens minus one", "claude-opus-4-1", llm.Reasoning{Level: llm.ReasoningMax}, 0, `{"type":"enabled","budget_tokens":31999}`, ""},
		{"a level clamps to max_tokens", "claude-sonnet-4-5", llm.Reasoning{Level: llm.ReasoningHigh}, 8000, `{"type":"enabled","budget_tokens":7999}`, ""},
		{"auto on an adaptive model", "claude-opus-4-6", llm.Reasoning{Level: llm.ReasoningAuto}, 0, `{"type":"adaptive"}`, ""},
		{"effort on an adaptive model", "claude-opus-4-6", llm.Reasoning{Level: llm.ReasoningLow}, 0, `{"type":"adaptive"}`, "low"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params, err := buildParams(llm.Request{Model: tc.model, Params: llm.Params{Reasoning: tc.r, MaxTokens: tc.maxTokens}}, 0)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(params)
			var body map[string]any
			_ = json.Unmarshal(b, &body)
			llmtest.AssertJSON(t, "thinking", body["thinking"], tc.thinking)
			oc, _ := body["output_config"].(map[string]any)
			if got, _ := oc["effort"].(string); got != tc.effort {
				t.Errorf("effort = %q, want %q", got, tc.effort)
			}
		})
	}
	if _, err := buildParams(llm.Request{Model: "claude-sonnet-4-5", Params: llm.Params{Reasoning: llm.Reasoning{Budget: 9000}, MaxTokens: 4000}}, 0); err == nil {
		t.Error("a budget above max_tokens was accepted")
	}
}
