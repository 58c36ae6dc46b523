// Package providers is the ports.ProviderFactory: it maps a model ID's
// provider name to an adapter configured from [providers.*] and the API
// key environment variables (docs/providers.md).
package providers

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jpcli/jp/adapters/llm/anthropic"
	"github.com/jpcli/jp/adapters/llm/demo"
	"github.com/jpcli/jp/adapters/llm/google"
	"github.com/jpcli/jp/adapters/llm/ollama"
	"github.com/jpcli/jp/adapters/llm/openai"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// Factory builds providers. Getenv reads API keys; BaseDir resolves a
// relative demo script path (the launch directory).
type Factory struct {
	Getenv  func(string) string
	BaseDir string
	// HTTPClient lists models; nil means http.DefaultClient.
	HTTPClient *http.Client
}

var _ ports.ProviderFactory = (*Factory)(nil)

// New returns a factory reading the process environment.
func New() *Factory {
	wd, _ := os.Getwd()
	return &Factory{Getenv: os.Getenv, BaseDir: wd}
}

// Known lists the built-in provider names; [providers.<name>] tables add
// the user's own.
var Known = []string{"anthropic", "cerebras", "deepseek", "demo", "google", "llamacpp", "ollama", "openai", "openrouter"}

// compatible are the built-in OpenAI-compatible services.
var compatible = map[string]openai.Dialect{
	"openrouter": openai.DialectOpenRouter,
	"llamacpp":   openai.DialectLlamaCpp,
	"cerebras":   openai.DialectCerebras,
	"deepseek":   openai.DialectDeepSeek,
}

// CompatibleConfig returns the table of a built-in OpenAI-compatible
// service or Google.
func CompatibleConfig(cfg config.Config, provider string) (config.Compatible, bool) {
	switch provider {
	case "openrouter":
		return cfg.Providers.OpenRouter, true
	case "llamacpp":
		return cfg.Providers.LlamaCpp, true
	case "cerebras":
		return cfg.Providers.Cerebras, true
	case "deepseek":
		return cfg.Providers.DeepSeek, true
	case "google":
		return cfg.Providers.Google, true
	}
	return config.Compatible{}, false
}

// HasKey reports whether provider's API key variable is set.
func (f *Factory) HasKey(cfg config.Config, provider string) bool {
	switch provider {
	case "openai":
		return f.key(cfg.Providers.OpenAI.APIKeyEnv) != ""
	case "anthropic":
		return f.key(cfg.Providers.Anthropic.APIKeyEnv) != ""
	case "google":
		k, _ := f.googleKey(cfg)
		return k != ""
	}
	if c, ok := CompatibleConfig(cfg, provider); ok {
		return f.key(c.APIKeyEnv) != ""
	}
	if n, ok := cfg.Providers.Named[provider]; ok {
		return f.key(n.APIKeyEnv) != ""
	}
	return false
}

func (f *Factory) key(env string) string {
	if env == "" {
		return ""
	}
	return strings.TrimSpace(f.Getenv(env))
}

// googleKey is the Gemini key: providers.google.api_key_env, else
// GOOGLE_API_KEY (the SDK's other name for it). It returns the variable
// the key came from.
func (f *Factory) googleKey(cfg config.Config) (key, env string) {
	env = cfg.Providers.Google.APIKeyEnv
	if k := f.key(env); k != "" {
		return k, env
	}
	if k := f.key("GOOGLE_API_KEY"); k != "" {
		return k, "GOOGLE_API_KEY"
	}
	return "", env
}

// Provider returns the adapter for model.
func (f *Factory) Provider(ctx context.Context, cfg config.Config, model llm.ModelID) (ports.Provider, error) {
	switch model.Provider {
	case "demo":
		script := cfg.Providers.Demo.Script
		if script != "" && !filepath.IsAbs(script) {
			script = filepath.Join(f.BaseDir, script)
		}
		return demo.New(demo.Options{ScriptPath: script})
	case "openai":
		return f.openai(cfg)
	case "ollama":
		c := cfg.Providers.Ollama
		return ollama.New(ollama.Options{BaseURL: c.BaseURL, APIKey: f.key(c.APIKeyEnv), APIKeyEnv: c.APIKeyEnv})
	case "anthropic":
		c := cfg.Providers.Anthropic
		key := f.key(c.APIKeyEnv)
		if key == "" {
			return nil, missingKey("anthropic", c.APIKeyEnv)
		}
		return anthropic.New(anthropic.Options{BaseURL: c.BaseURL, APIKey: key, APIKeyEnv: c.APIKeyEnv})
	case "google":
		return f.google(cfg)
	}
	if d, ok := compatible[model.Provider]; ok {
		c, _ := CompatibleConfig(cfg, model.Provider)
		key := f.key(c.APIKeyEnv)
		if key == "" && c.APIKeyEnv != "" && model.Provider != "llamacpp" {
			return nil, missingKey(model.Provider, c.APIKeyEnv)
		}
		return openai.New(openai.Options{BaseURL: c.BaseURL, APIKey: key, APIKeyEnv: c.APIKeyEnv, Name: model.Provider, Dialect: d})
	}
	if n, ok := cfg.Providers.Named[model.Provider]; ok {
		if n.Kind != "openai-compatible" {
			return nil, fmt.Errorf("providers.%s.kind is %q: the only kind of a provider of your own is \"openai-compatible\"", model.Provider, n.Kind)
		}
		if n.BaseURL == "" {
			return nil, fmt.Errorf("providers.%s.base_url is not set: set it to the server's address, e.g. \"http://127.0.0.1:8000/v1\"", model.Provider)
		}
		key := f.key(n.APIKeyEnv)
		if key == "" && n.APIKeyEnv != "" {
			return nil, missingKey(model.Provider, n.APIKeyEnv)
		}
		return openai.New(openai.Options{BaseURL: n.BaseURL, APIKey: key, APIKeyEnv: n.APIKeyEnv, Name: model.Provider})
	}
	return nil, fmt.Errorf("unknown provider %q in model %q: known providers are %s", model.Provider, model, strings.Join(Names(cfg), ", "))
}

// Names lists the built-in providers and the user's own, sorted.
func Names(cfg config.Config) []string {
	names := slices.Clone(Known)
	for n := range cfg.Providers.Named {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

func missingKey(provider, env string) error {
	return fmt.Errorf("the %s provider needs an API key: set %s (or providers.%s.api_key_env), or pick another model with --model", provider, env, provider)
}

func (f *Factory) openai(cfg config.Config) (ports.Provider, error) {
	c := cfg.Providers.OpenAI
	key := f.key(c.APIKeyEnv)
	official := isOfficialOpenAI(c.BaseURL)
	if key == "" && official {
		return nil, missingKey("openai", c.APIKeyEnv)
	}
	opts := openai.Options{BaseURL: c.BaseURL, APIKey: key, APIKeyEnv: c.APIKeyEnv, Name: "openai"}
	// An explicit api always wins; only the default depends on the
	// endpoint (a gateway or proxy may well speak the Responses API).
	switch c.API {
	case "":
		if official {
			return openai.NewResponses(opts)
		}
		return openai.New(opts)
	case "responses":
		return openai.NewResponses(opts)
	case "chat_completions":
		return openai.New(opts)
	}
	return nil, fmt.Errorf("providers.openai.api is %q: expected \"responses\" or \"chat_completions\"", c.API)
}

func (f *Factory) google(cfg config.Config) (ports.Provider, error) {
	key, env := f.googleKey(cfg)
	if key == "" {
		return nil, fmt.Errorf("the google provider needs an API key: set %s or GOOGLE_API_KEY (or providers.google.api_key_env), or pick another model with --model", env)
	}
	return google.New(google.Options{BaseURL: cfg.Providers.Google.BaseURL, APIKey: key, APIKeyEnv: env})
}

func isOfficialOpenAI(base string) bool {
	return base == "" || strings.Contains(base, "api.openai.com")
}
