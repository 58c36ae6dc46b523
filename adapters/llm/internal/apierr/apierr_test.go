package apierr

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/llm"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"milliseconds win", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{"http date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"date in the past", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative", http.Header{"Retry-After": {"-3"}}, 0},
		{"capped", http.Header{"Retry-After": {"1e9"}}, maxRetryAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RetryAfter(tc.header, now); got != tc.want {
				t.Errorf("RetryAfter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFromStatus(t *testing.T) {
	for _, tc := range []struct {
		status int
		kind   llm.ErrorKind
	}{
		{400, llm.ErrorFatal}, {401, llm.ErrorAuth}, {403, llm.ErrorAuth}, {404, llm.ErrorFatal},
		{408, llm.ErrorTransient}, {413, llm.ErrorFatal}, {429, llm.ErrorTransient},
		{500, llm.ErrorTransient}, {503, llm.ErrorTransient}, {529, llm.ErrorTransient},
	} {
		e := FromStatus("p", tc.status, nil, "", Key{Env: "K", Set: true}, time.Now())
		if e.Kind != tc.kind || e.Status != tc.status || (e.Message == "" && http.StatusText(tc.status) != "") {
			t.Errorf("%d: %+v", tc.status, e)
		}
	}
}

func TestMessageFromBody(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"bad key","type":"x"}}`:                   "bad key",
		`{"type":"error","error":{"type":"x","message":"overloaded"}}`: "overloaded",
		`{"error":"model not found"}`:                                  "model not found",
		`{"message":"plain"}`:                                          "plain",
		`{"detail":"not allowed"}`:                                     "not allowed",
		`upstream timed out`:                                           "upstream timed out",
		`<html><body>502</body></html>`:                                "",
		``:                                                             "",
	} {
		if got := MessageFromBody([]byte(body)); got != want {
			t.Errorf("MessageFromBody(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestTransportAndOneLine(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Transport(ctx, "p", errors.New("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: %v", err)
	}
	err := Transport(context.Background(), "p", errors.New("dial tcp: connection refused"))
	if !llm.IsTransient(err) {
		t.Errorf("connection error: %v", err)
	}
	if got := OneLine("a\n  b\tc"); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
	long := OneLine(strings.Repeat("é", 400))
	if !strings.HasSuffix(long, "...") || !strings.HasPrefix(long, "é") || len(long) > 504 {
		t.Errorf("OneLine long = %d bytes", len(long))
	}
}

func TestToolArguments(t *testing.T) {
	for args, want := range map[string]string{
		"":              "{}",
		"  \n":          "{}",
		` {"a": 1} `:    `{"a": 1}`,
		`{"a": [1, 2]}`: `{"a": [1, 2]}`,
		"null":          "",
		"[1]":           "",
		`{"a": `:        "",
		`{"a": 1} x`:    "",
	} {
		got, err := ToolArguments("p", "fs_read", "arguments", args)
		if want == "" {
			if err == nil || !strings.Contains(err.Error(), "invalid arguments for tool fs_read") || llm.IsTransient(err) {
				t.Errorf("ToolArguments(%q): err = %v, want a fatal error naming the tool", args, err)
			}
			continue
		}
		if err != nil || string(got) != want {
			t.Errorf("ToolArguments(%q) = %s, %v; want %s", args, got, err, want)
		}
	}
}

// Overflow recognises the providers' context-window errors and nothing
// else: a rate limit counting tokens, a bad request, an empty body.
func TestOverflow(t *testing.T) {
	for _, s := range []string{
		"prompt is too long: 208310 tokens > 200000 maximum",
		`{"error":{"message":"Your input exceeds the context window of this model.","code":"context_length_exceeded"}}`,
		"This model's maximum context length is 128000 tokens.",
		"The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).",
		"the input length exceeds the context length",
		"request (4476 tokens) exceeds the available context size (4096 tokens)",
	} {
		if !Overflow(s) {
			t.Errorf("Overflow(%q) = false", s)
		}
	}
	for _, s := range []string{"", "Number of request tokens has exceeded your per-minute rate limit", "messages.1.content.0.tool_use.id: String should match pattern", "max_tokens: 200000 > 64000, which is the maximum allowed"} {
		if Overflow(s) {
			t.Errorf("Overflow(%q) = true", s)
		}
	}
	// Only a refused request (400, 413) is an overflow: not a 429 saying the same.
	if e := FromStatus("anthropic", 429, nil, "prompt is too long", Key{}, time.Time{}); e.Overflow {
		t.Errorf("429 taken for an overflow: %+v", e)
	}
	if e := FromStatus("anthropic", 413, nil, "prompt is too long", Key{}, time.Time{}); !e.Overflow || e.Kind != llm.ErrorFatal {
		t.Errorf("413: %+v", e)
	}
}
