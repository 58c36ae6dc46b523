package app_test

import (
	"os"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/llm/anthropic"
	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/adapters/llm/openai"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

func sse(t *testing.T, path string) llmtest.Response {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return llmtest.SSE(string(b))
}

func cut(t *testing.T, path string) llmtest.Response {
	r := sse(t, path)
	r.Cut = true
	return r
}

// TestProvidersDriveCompleteTurns runs whole turns of the engine against
// httptest servers replaying each provider's real streaming format: tool
// calls whose arguments arrive split across chunks, usage, a 429 then
// success, and a stream cut mid-response that the turn continues from.
func TestProvidersDriveCompleteTurns(t *testing.T) {
	for _, tt := range []struct {
		name      string
		responses func(t *testing.T) []llmtest.Response
		provider  func(url string) (ports.Provider, error)
		toolNames string
		wantText  string
	}{
		{
			name: "openai",
			responses: func(t *testing.T) []llmtest.Response {
				return []llmtest.Response{
					sse(t, "../adapters/llm/openai/testdata/tool_calls.sse"),
					llmtest.JSONError(429, `{"error":{"message":"Rate limit reached","type":"requests"}}`, map[string]string{"Retry-After": "0"}),
					cut(t, "../adapters/llm/openai/testdata/cut.sse"),
					sse(t, "../adapters/llm/openai/testdata/text.sse"),
				}
			},
			provider: func(url string) (ports.Provider, error) {
				return openai.New(openai.Options{BaseURL: url, APIKey: "sk-test", APIKeyEnv: "OPENAI_API_KEY"})
			},
			toolNames: "get_weather,fs_read",
		},
		{
			name: "anthropic",
			responses: func(t *testing.T) []llmtest.Response {
				return []llmtest.Response{
					sse(t, "../adapters/llm/anthropic/testdata/tool_use.sse"),
					llmtest.JSONError(429, `{"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"}}`, map[string]string{"Retry-After": "0"}),
					cut(t, "../adapters/llm/anthropic/testdata/cut.sse"),
					sse(t, "../adapters/llm/anthropic/testdata/text.sse"),
				}
			},
			provider: func(url string) (ports.Provider, error) {
				return anthropic.New(anthropic.Options{BaseURL: url, APIKey: "sk-ant-test", APIKeyEnv: "ANTHROPIC_API_KEY"})
			},
			toolNames: "get_weather,now",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.responses(t)...)
			f := newFixture(t)
			f.cfg.Conversation.Tools.Defaults.Run = config.RunPolicyUnattended
			p, err := tt.provider(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			f.real = p
			_, evs, err := f.run(t, app.QueryInput{Message: "weather?", HasMessage: true, Model: tt.name + "/test-model"})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			var calls, results []string
			var messages []string
			for _, e := range evs {
				switch e.Type {
				case conversation.EventTypeToolCallRequest:
					calls = append(calls, e.Name)
					if e.Name == "get_weather" && !strings.Contains(string(e.Arguments), `"location"`) {
						t.Fatalf("arguments not assembled: %s", e.Arguments)
					}
				case conversation.EventTypeToolCallResponse:
					results = append(results, e.CallID)
				case conversation.EventTypeChatResponse:
					if e.Message != "" {
						messages = append(messages, e.Message)
					}
				}
			}
			if strings.Join(calls, ",") != tt.toolNames || len(results) != len(calls) {
				t.Fatalf("calls %v results %v", calls, results)
			}
			if last := evs[len(evs)-1]; last.Outcome != conversation.OutcomeCompleted {
				t.Fatalf("turn ended %+v", last)
			}
			// The cut stream's partial text was discarded (one copy: the
			// retry's), then the turn went on.
			joined := strings.Join(messages, "|")
			if strings.Contains(joined, "The first half") || !strings.Contains(joined, "Hello! How can I help?") {
				t.Fatalf("messages stored: %q", joined)
			}
			reqs := srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want 4", len(reqs))
			}
			if len(f.ticks) != 2 {
				t.Fatalf("retries slept %v, want 2 backoffs (429, cut)", f.ticks)
			}
			last := string(reqs[3].Body)
			if strings.Contains(last, "The first half") {
				t.Fatalf("the retry carried the failed attempt's partial response: %s", last)
			}
			for _, e := range evs {
				if e.Type == conversation.EventTypeToolCallRequest && !strings.Contains(last, e.CallID) {
					t.Fatalf("tool call %s missing from the history sent: %s", e.CallID, last)
				}
			}
		})
	}
}

// TestProvider401IsClearAndNotRetried checks the auth failure path.
func TestProvider401IsClearAndNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.JSONError(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, nil))
	f := newFixture(t)
	p, err := openai.New(openai.Options{BaseURL: srv.URL, APIKey: "sk-bad", APIKeyEnv: "OPENAI_API_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	f.real = p
	_, evs, err := f.run(t, app.QueryInput{Message: "hi", HasMessage: true, Model: "openai/x"})
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "OPENAI_API_KEY") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
	if len(srv.Requests()) != 1 || len(f.ticks) != 0 {
		t.Fatalf("a 401 was retried: %d requests", len(srv.Requests()))
	}
	if evs[len(evs)-1].Outcome != conversation.OutcomeError {
		t.Fatalf("turn_end = %+v", evs[len(evs)-1])
	}
}
