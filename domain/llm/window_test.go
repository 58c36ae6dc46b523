package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestContextWindow(t *testing.T) {
	over := map[string]int{"ollama/llama3.2": 131_072, "demo": 1_000, "openai/gpt-4o": 0}
	cases := []struct {
		id   string
		want int
		ok   bool
	}{
		{"anthropic/claude-sonnet-4-5", 200_000, true},
		{"anthropic/claude-sonnet-4-5-20250929", 200_000, true},
		{"openai/gpt-4o", 128_000, true}, // a zero override is ignored
		{"openai/gpt-4o-2024-08-06", 128_000, true},
		{"openai/gpt-4.1-mini", 1_047_576, true},
		{"openai/gpt-4-turbo", 128_000, true},
		{"openai/gpt-5-mini", 272_000, true},
		{"openai/o3-mini", 200_000, true},
		{"openai/ft:custom", 0, false},
		{"google/gemini-2.5-pro", 1_048_576, true},
		{"google/gemini-1.5-pro-002", 2_097_152, true},
		{"ollama/qwen3", 4_096, true},
		{"ollama/llama3.2", 131_072, true},
		{"demo/echo", 1_000, true},
		{"openrouter/x/y", 0, false},
	}
	for _, c := range cases {
		id, err := ParseModelID(c.id)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := ContextWindow(id, over)
		if got != c.want || ok != c.ok {
			t.Errorf("ContextWindow(%s) = %d, %v; want %d, %v", c.id, got, ok, c.want, c.ok)
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	if got := EstimateTokens(Request{}); got != 0 {
		t.Errorf("empty request: %d tokens, want 0", got)
	}
	text := strings.Repeat("abcd", 1000) // 4000 characters
	base := EstimateTokens(Request{Messages: []Message{{Role: RoleUser, Text: text}}})
	if base < 1000 || base > 1010 {
		t.Errorf("4000 characters: %d tokens, want about 1000", base)
	}
	// Every part of the request counts.
	parts := map[string]Request{
		"system":     {System: text},
		"tool":       {Tools: []Tool{{Name: "t", Description: text, Parameters: json.RawMessage(`{}`)}}},
		"reasoning":  {Messages: []Message{{Role: RoleAssistant, Reasoning: text}}},
		"tool call":  {Messages: []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "1", Name: "t", Arguments: json.RawMessage(`{"a":"` + text + `"}`)}}}}},
		"tool reply": {Messages: []Message{{Role: RoleTool, ToolCallID: "1", Text: text}}},
		"attachment": {Messages: []Message{{Role: RoleUser, Attachments: []Attachment{{Name: "f", MediaType: "text/plain", Text: text}}}}},
		"image":      {Messages: []Message{{Role: RoleUser, Attachments: []Attachment{{Name: "i.png", MediaType: "image/png", Data: []byte(text)}}}}},
	}
	for name, req := range parts {
		if got := EstimateTokens(req); got < 1000 {
			t.Errorf("%s of 4000 characters: %d tokens, want at least 1000", name, got)
		}
	}
	// Characters, not bytes: 4000 three-byte runes are 1000 tokens too.
	wide := EstimateTokens(Request{Messages: []Message{{Role: RoleUser, Text: strings.Repeat("語", 4000)}}})
	if wide != base {
		t.Errorf("4000 runes: %d tokens, want %d", wide, base)
	}
}

func TestFormatTokens(t *testing.T) {
	for n, want := range map[int]string{0: "0", 950: "950", 999: "999", 1_000: "1k", 41_499: "41k", 41_500: "42k",
		200_000: "200k", 999_499: "999k", 999_500: "1M", 1_048_576: "1M", 1_250_000: "1.3M", 2_097_152: "2.1M"} {
		if got := FormatTokens(n); got != want {
			t.Errorf("FormatTokens(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestContextMeter(t *testing.T) {
	m := ContextMeter{Tokens: 41_000, Window: 200_000}
	if got := m.String(); got != "ctx 41k/200k" {
		t.Errorf("meter %q, want ctx 41k/200k", got)
	}
	if got := (ContextMeter{Tokens: 41_000}).String(); got != "ctx 41k" {
		t.Errorf("meter without a window %q, want ctx 41k", got)
	}
	if m.Exceeds(0.75) || !(ContextMeter{Tokens: 150_001, Window: 200_000}).Exceeds(0.75) || (ContextMeter{Tokens: 150_001}).Exceeds(0.75) {
		t.Error("Exceeds: wrong answer at the threshold or without a window")
	}
}
