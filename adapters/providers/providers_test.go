package providers

import (
	"context"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
)

func TestProviderChoiceAndErrors(t *testing.T) {
	env := map[string]string{}
	f := &Factory{Getenv: func(k string) string { return env[k] }, BaseDir: "/tmp"}
	cfg := config.Default()
	ctx := context.Background()

	if _, err := f.Provider(ctx, cfg, llm.ModelID{Provider: "nope", Model: "x"}); err == nil ||
		!strings.Contains(err.Error(), "known providers are anthropic, demo, ollama, openai") {
		t.Fatalf("unknown provider: %v", err)
	}
	if _, err := f.Provider(ctx, cfg, llm.ModelID{Provider: "openai", Model: "gpt-4o"}); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("missing openai key: %v", err)
	}
	if _, err := f.Provider(ctx, cfg, llm.ModelID{Provider: "anthropic", Model: "m"}); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("missing anthropic key: %v", err)
	}
	if f.HasKey(cfg, "openai") || f.HasKey(cfg, "anthropic") {
		t.Fatal("no keys are set")
	}
	env["OPENAI_API_KEY"], env["ANTHROPIC_API_KEY"] = "sk-1", "sk-2"
	if !f.HasKey(cfg, "openai") || !f.HasKey(cfg, "anthropic") {
		t.Fatal("keys are set")
	}
	for _, p := range []string{"openai", "anthropic", "ollama", "demo"} {
		if _, err := f.Provider(ctx, cfg, llm.ModelID{Provider: p, Model: "m"}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	// A local OpenAI-compatible server needs no key.
	delete(env, "OPENAI_API_KEY")
	cfg.Providers.OpenAI.BaseURL = "http://127.0.0.1:8080/v1"
	if _, err := f.Provider(ctx, cfg, llm.ModelID{Provider: "openai", Model: "local"}); err != nil {
		t.Fatalf("keyless local server: %v", err)
	}
}
