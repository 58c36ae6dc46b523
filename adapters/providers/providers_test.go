package providers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
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
		!strings.Contains(err.Error(), "known providers are anthropic, cerebras, deepseek, demo, google, llamacpp, ollama, openai, openrouter") {
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

func TestCompatibleAndNamedProviders(t *testing.T) {
	env := map[string]string{}
	f := &Factory{Getenv: func(k string) string { return env[k] }}
	cfg := config.Default()
	ctx := context.Background()
	for _, p := range []string{"openrouter", "cerebras", "deepseek"} {
		_, err := f.Provider(ctx, cfg, llm.ModelID{Provider: p, Model: "m"})
		if err == nil || !strings.Contains(err.Error(), strings.ToUpper(p)+"_API_KEY") || !strings.Contains(err.Error(), "providers."+p+".api_key_env") {
			t.Errorf("%s without a key: %v", p, err)
		}
		env[strings.ToUpper(p)+"_API_KEY"] = "k"
		if _, err := f.Provider(ctx, cfg, llm.ModelID{Provider: p, Model: "m"}); err != nil || !f.HasKey(cfg, p) {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := f.Provider(ctx, cfg, llm.ModelID{Provider: "llamacpp", Model: "m"}); err != nil {
		t.Errorf("llamacpp needs no key: %v", err)
	}
	cfg.Providers.Named = map[string]config.NamedProvider{
		"vllm":   {Kind: "openai-compatible", BaseURL: "http://127.0.0.1:8000/v1"},
		"keyed":  {Kind: "openai-compatible", BaseURL: "https://example.invalid/v1", APIKeyEnv: "KEYED_KEY"},
		"wrong":  {Kind: "anthropic", BaseURL: "http://x"},
		"nourl":  {Kind: "openai-compatible"},
		"badurl": {Kind: "openai-compatible", BaseURL: "127.0.0.1:8000"},
	}
	if _, err := f.Provider(ctx, cfg, llm.ModelID{Provider: "vllm", Model: "m"}); err != nil {
		t.Errorf("vllm: %v", err)
	}
	for name, want := range map[string]string{
		"keyed":  "set KEYED_KEY",
		"wrong":  `providers.wrong.kind is "anthropic"`,
		"nourl":  "providers.nourl.base_url is not set",
		"badurl": "must start with http://",
		"nope":   "known providers are anthropic, badurl, cerebras",
	} {
		if _, err := f.Provider(ctx, cfg, llm.ModelID{Provider: name, Model: "m"}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

func TestOpenAIAPIChoice(t *testing.T) {
	f := &Factory{Getenv: func(string) string { return "sk" }}
	cfg := config.Default()
	ctx := context.Background()
	id := llm.ModelID{Provider: "openai", Model: "gpt-5"}
	for api, want := range map[string]string{"": "*openai.Responses", "responses": "*openai.Responses", "chat_completions": "*openai.Provider"} {
		cfg.Providers.OpenAI.API = api
		p, err := f.Provider(ctx, cfg, id)
		if err != nil || fmt.Sprintf("%T", p) != want {
			t.Errorf("api %q: %T %v, want %s", api, p, err, want)
		}
	}
	cfg.Providers.OpenAI.API = ""
	cfg.Providers.OpenAI.BaseURL = "http://127.0.0.1:8000/v1"
	if p, _ := f.Provider(ctx, cfg, id); fmt.Sprintf("%T", p) != "*openai.Provider" {
		t.Errorf("a compatible server got %T by default; it speaks Chat Completions", p)
	}
	cfg.Providers.OpenAI.API = "completions"
	if _, err := f.Provider(ctx, cfg, id); err == nil || !strings.Contains(err.Error(), `providers.openai.api is "completions"`) {
		t.Errorf("bad api: %v", err)
	}
}

// TestOpenAIExplicitAPIWinsOverBaseURL: an explicit providers.openai.api
// is what a gateway behind base_url gets; only the default depends on the
// endpoint. A stand-in server records the path of each request.
func TestOpenAIExplicitAPIWinsOverBaseURL(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		http.Error(w, `{"error":{"message":"stand-in"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	f := &Factory{Getenv: func(string) string { return "" }}
	id := llm.ModelID{Provider: "openai", Model: "gpt-5"}
	for api, want := range map[string]string{
		"responses":        "POST /gw/v1/responses",
		"chat_completions": "POST /gw/v1/chat/completions",
		"":                 "POST /gw/v1/chat/completions",
	} {
		cfg := config.Default()
		cfg.Providers.OpenAI.BaseURL = srv.URL + "/gw/v1"
		cfg.Providers.OpenAI.API = api
		p, err := f.Provider(context.Background(), cfg, id)
		if err != nil {
			t.Fatalf("api %q: %v", api, err)
		}
		mu.Lock()
		paths = nil
		mu.Unlock()
		_ = p.Stream(context.Background(), llm.Request{Model: "gpt-5", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}, func(llm.Event) error { return nil })
		mu.Lock()
		got := slices.Clone(paths)
		mu.Unlock()
		if len(got) == 0 || got[0] != want {
			t.Errorf("api %q with base_url: requests %q, want %q", api, got, want)
		}
	}
}

func TestGoogleKeyVariables(t *testing.T) {
	env := map[string]string{}
	f := &Factory{Getenv: func(k string) string { return env[k] }}
	cfg := config.Default()
	id := llm.ModelID{Provider: "google", Model: "gemini-2.5-flash"}
	if _, err := f.Provider(context.Background(), cfg, id); err == nil || !strings.Contains(err.Error(), "set GEMINI_API_KEY or GOOGLE_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	env["GOOGLE_API_KEY"] = "g"
	if _, err := f.Provider(context.Background(), cfg, id); err != nil || !f.HasKey(cfg, "google") {
		t.Errorf("GOOGLE_API_KEY: %v", err)
	}
}
