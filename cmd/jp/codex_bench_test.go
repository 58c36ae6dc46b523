package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkQueryVsCodex: one prompt against a local OpenAI-format mock,
// jp (titles on, the default) beside Codex CLI's native binary, each a
// whole process reporting its median wall time and peak RSS (target: jp
// under 0.2x Codex's time and 0.3x its peak). Codex is not a dependency:
// set JP_BENCH_CODEX to its native binary (the @openai/codex npm package
// ships it under node_modules/@openai/codex-linux-x64/vendor/.../bin/codex);
// without it the benchmark is skipped.
func BenchmarkQueryVsCodex(b *testing.B) {
	codex := os.Getenv("JP_BENCH_CODEX")
	if codex == "" {
		b.Skip("JP_BENCH_CODEX is not set to a Codex CLI binary")
	}
	srv := chatAndResponsesMock(b)
	bin := buildJPBinary(b, b.TempDir())
	b.Run("jp", func(b *testing.B) {
		dir, env := benchWorkspace(b, bin, 10)
		env = append(env, "OPENAI_API_KEY=sk-test")
		timeRuns(b, dir, env, bin, "q", "--new", "--model", "openai/gpt-4o",
			"--cfg", "providers.openai.base_url="+srv.URL+"/v1",
			"--cfg", "conversation.title.model=", "Say hello")
	})
	b.Run("codex", func(b *testing.B) {
		home, dir := b.TempDir(), b.TempDir()
		cfg := fmt.Sprintf("model = \"gpt-4o\"\nmodel_provider = \"mock\"\napproval_policy = \"never\"\n"+
			"sandbox_mode = \"read-only\"\n\n[model_providers.mock]\nname = \"mock\"\nbase_url = %q\n"+
			"wire_api = \"responses\"\nenv_key = \"OPENAI_API_KEY\"\n", srv.URL+"/v1")
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
			b.Fatal(err)
		}
		env := append(os.Environ(), "CODEX_HOME="+home, "HOME="+home, "OPENAI_API_KEY=sk-test")
		timeRuns(b, dir, env, codex, "exec", "--skip-git-repo-check", "Say hello")
	})
}

// chatAndResponsesMock is a local OpenAI-format server: streamed chat
// completions (jp's default for a base URL of its own) and the streamed
// Responses API (Codex's), each answering "Hello! How can I help?".
func chatAndResponsesMock(b *testing.B) *httptest.Server {
	b.Helper()
	chat, err := os.ReadFile("../../adapters/llm/openai/testdata/text.sse")
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile("../../adapters/llm/openai/testdata/responses/text.sse")
	if err != nil {
		b.Fatal(err)
	}
	var resp bytes.Buffer
	for line := range strings.Lines(string(raw)) {
		if !strings.HasPrefix(line, "#") { // the fixture's comment lines
			resp.WriteString(line)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/responses"):
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(resp.Bytes())
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(chat)
		default:
			http.NotFound(w, r)
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}
