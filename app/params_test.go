package app_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// A response cut by the token limit is recorded with its stop reason,
// model and usage, said in one chrome line naming the setting, and the
// turn's total lands on turn_end with a usage line.
func TestLengthStopIsVisibleAndUsageRecorded(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{
		text("Once upon"),
		{Kind: llm.EventUsage, Usage: llm.Usage{InputTokens: 1200, OutputTokens: 16, CacheReadTokens: 1000}},
		{Kind: llm.EventDone, Stop: llm.StopLength},
	}})
	f.cfg.Assistant.Model.Parameters.MaxTokens = 16
	f.cfg.Assistant.Model.Parameters.Temperature = config.Float(0.3)
	f.cfg.Assistant.Model.Parameters.Reasoning = config.Reasoning{Budget: 2048}
	f.cfg.Assistant.Model.Parameters.ToolChoice = "fs_read"
	schema := json.RawMessage(`{"type":"object"}`)
	_, evs, err := f.run(t, app.QueryInput{Message: "story", HasMessage: true, Model: "anthropic/claude-sonnet-4-5", Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	if got := types(evs); got != "turn_start,chat_request,chat_response,turn_end" {
		t.Fatalf("events = %s", got)
	}
	r := evs[2]
	if r.StopReason != "length" || r.Model != "anthropic/claude-sonnet-4-5" || r.Usage == nil || r.Usage.OutputTokens != 16 {
		t.Errorf("chat_response = %+v", r)
	}
	end := evs[3]
	if end.Model != "anthropic/claude-sonnet-4-5" || end.Usage == nil || end.Usage.InputTokens != 1200 || end.Usage.CacheReadTokens != 1000 {
		t.Errorf("turn_end = %+v", end)
	}
	chrome := f.printer.text(ports.ChannelChrome)
	if strings.Count(chrome, "token limit") != 1 || !strings.Contains(chrome, "assistant.model.parameters.max_tokens: 16") {
		t.Errorf("chrome = %q", chrome)
	}
	if len(f.printer.usage()) != 1 {
		t.Fatalf("usage reports = %+v", f.printer.usage())
	}
	u := f.printer.usage()[0]
	if u.Model != "anthropic/claude-sonnet-4-5" || u.Usage != (llm.Usage{InputTokens: 1200, OutputTokens: 16, CacheReadTokens: 1000}) ||
		!u.Priced || fmt.Sprintf("%.4f", u.Cost) != "0.0011" {
		t.Errorf("usage report = %+v", u)
	}
	req := requests(f.provider)[0]
	if string(req.Schema) != `{"type":"object"}` || req.Params.MaxTokens != 16 || req.Params.Temperature == nil || *req.Params.Temperature != 0.3 ||
		req.Params.Reasoning.Budget != 2048 || req.Params.ToolChoice != (llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "fs_read"}) {
		t.Errorf("request = %+v", req)
	}
	if string(evs[1].Schema) != `{"type":"object"}` {
		t.Errorf("chat_request schema = %s", evs[1].Schema)
	}
}

func TestContinueOnLength(t *testing.T) {
	f := newFixture(t,
		resp{events: []llm.Event{text("Once upon "), {Kind: llm.EventDone, Stop: llm.StopLength}}},
		resp{events: []llm.Event{text("a time."), {Kind: llm.EventDone, Stop: llm.StopEnd}}},
	)
	f.cfg.Query.ContinueOnLength = 2
	_, evs, err := f.run(t, app.QueryInput{Message: "story", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := types(evs); got != "turn_start,chat_request,chat_response,chat_response,turn_end" {
		t.Fatalf("events = %s", got)
	}
	second := requests(f.provider)[1].Messages
	if n := len(second); n != 2 || second[1].Role != llm.RoleAssistant || second[1].Text != "Once upon " {
		t.Errorf("continuation history = %+v", second)
	}
	if !strings.Contains(f.printer.text(ports.ChannelChrome), "continuing it") {
		t.Errorf("chrome = %q", f.printer.text(ports.ChannelChrome))
	}
}

// A provider error reaches the caller once, and is not also printed.
func TestProviderErrorIsNotPrinted(t *testing.T) {
	f := newFixture(t, resp{err: &llm.Error{Kind: llm.ErrorFatal, Provider: "anthropic", Status: 404, Message: "model: nope"}})
	_, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	if err == nil || err.Error() != "anthropic: HTTP 404: model: nope" {
		t.Fatalf("err = %v", err)
	}
	if got := f.printer.text(ports.ChannelError); got != "" {
		t.Errorf("error also printed: %q", got)
	}
}

func TestBadToolChoiceIsOneLine(t *testing.T) {
	f := newFixture(t)
	f.cfg.Assistant.Model.Parameters.ToolChoice = "two words"
	_, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	if err == nil || !strings.Contains(err.Error(), "assistant.model.parameters.tool_choice") {
		t.Fatalf("err = %v", err)
	}
}

func TestReasoningHiddenButRecorded(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{{Kind: llm.EventReasoningDelta, Text: "hmm"}, text("answer")}})
	_, evs, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true, HideReasoning: true})
	if err != nil {
		t.Fatal(err)
	}
	if evs[2].Reasoning != "hmm" || evs[3].Message != "answer" {
		t.Errorf("events = %+v", evs)
	}
	if got := f.printer.text(ports.ChannelReasoning); strings.Contains(got, "hmm") {
		t.Errorf("reasoning shown: %q", got)
	}
}
