package llm

import "testing"

func TestTakesImages(t *testing.T) {
	cases := map[string]bool{
		"anthropic/claude-sonnet-4-5":         true,
		"anthropic/claude-3-5-haiku-20241022": false,
		"openai/gpt-4.1":                      true,
		"openai/gpt-3.5-turbo":                false,
		"openai/o3-mini":                      false,
		"openai/o3":                           true,
		"deepseek/deepseek-chat":              false,
		"demo/echo":                           true,
		"ollama/llava":                        true,
	}
	for id, want := range cases {
		m, err := ParseModelID(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := TakesImages(m); got != want {
			t.Errorf("TakesImages(%s) = %v, want %v", id, got, want)
		}
	}
}
