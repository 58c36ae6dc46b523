package llm

import (
	"strings"
	"testing"
)

func TestParseModelIDSuggestsProvider(t *testing.T) {
	for in, want := range map[string]string{
		"gpt-4o":            "did you mean openai/gpt-4o?",
		"o4-mini":           "did you mean openai/o4-mini?",
		"o3":                "did you mean openai/o3?",
		"claude-sonnet-4-5": "did you mean anthropic/claude-sonnet-4-5?",
		"gemini-2.5-flash":  "did you mean google/gemini-2.5-flash?",
		"deepseek-chat":     "did you mean deepseek/deepseek-chat?",
		"echo":              "did you mean demo/echo?",
		"mystery":           "(for example demo/echo or openai/gpt-4o)",
		"ollama":            "(for example demo/echo or openai/gpt-4o)",
		"/gpt-4o":           "(for example demo/echo or openai/gpt-4o)",
	} {
		_, err := ParseModelID(in)
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%q: %v, want it to end %q", in, err, want)
		}
	}
	if m, err := ParseModelID("openai/gpt-4o"); err != nil || m.Provider != "openai" {
		t.Errorf("openai/gpt-4o: %v %v", m, err)
	}
}
