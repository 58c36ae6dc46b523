package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

// openAIMock is a local OpenAI-format server (chat completions, streamed)
// that answers every request, title requests included, with a short text
// after delay.
func openAIMock(b *testing.B, delay time.Duration) *httptest.Server {
	b.Helper()
	body, err := os.ReadFile("../../adapters/llm/openai/testdata/text.sse")
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay) // the model's time to answer (a server, not a test wait)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkQueryOpenAIMock: a one-shot jp q --new against a local
// OpenAI-format mock, with generated titles (the default) and with
// conversation.title.model = "none". The title request runs beside the
// answer and a run never waits for it, so "titles" should be within noise
// of "none". "slow" makes the mock take 50 ms per request: a run that
// waited for its title after the answer would take about 100 ms more.
func BenchmarkQueryOpenAIMock(b *testing.B) {
	bin := buildJPBinary(b, b.TempDir())
	for _, c := range []struct {
		name  string
		delay time.Duration
		title string
	}{
		{"titles", 0, ""},
		{"none", 0, "none"},
		{"slow-titles", 50 * time.Millisecond, ""},
		{"slow-none", 50 * time.Millisecond, "none"},
	} {
		b.Run(c.name, func(b *testing.B) {
			srv := openAIMock(b, c.delay)
			dir, env := benchWorkspace(b, bin, 10)
			env = append(env, "OPENAI_API_KEY=sk-test")
			timeRuns(b, dir, env, bin, "q", "--new", "--model", "openai/gpt-4o",
				"--cfg", "providers.openai.base_url="+srv.URL+"/v1",
				"--cfg", "conversation.title.model="+c.title, "Say hello")
		})
	}
}
