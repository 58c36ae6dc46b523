// Package providers is the ports.ProviderFactory: it maps a model ID's
// provider name to an adapter (demo, openai, ollama, anthropic) configured
// from [providers.*] and the API key environment variables.
package providers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jpcli/jp/adapters/llm/anthropic"
	"github.com/jpcli/jp/adapters/llm/demo"
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
}

var _ ports.ProviderFactory = (*Factory)(nil)

// New returns a factory reading the process environment.
func New() *Factory {
	wd, _ := os.Getwd()
	return &Factory{Getenv: os.Getenv, BaseDir: wd}
}

// Known lists the provider names jp understands.
var Known = []string{"anthropic", "demo", "ollama", "openai"}

// HasKey reports whether provider's API key variable is set.
func (f *Factory) HasKey(cfg config.Config, provider string) bool {
	switch provider {
	case "openai":
		return f.key(cfg.Providers.OpenAI.APIKeyEnv) != ""
	case "anthropic":
		return f.key(cfg.Providers.Anthropic.APIKeyEnv) != ""
	}
	return false
}

func (f *Factory) key(env string) string {
	if env == "" {
		return ""
	}
	return strings.TrimSpace(f.Getenv(env))
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
		c := cfg.Providers.OpenAI
		key := f.key(c.APIKeyEnv)
		if key == "" && isOfficialOpenAI(c.BaseURL) {
			return nil, fmt.Errorf("the openai provider needs an API key: set %s (or providers.openai.api_key_env), or pick another model with --model", c.APIKeyEnv)
		}
		return openai.New(openai.Options{BaseURL: c.BaseURL, APIKey: key, APIKeyEnv: c.APIKeyEnv, Name: "openai"})
	case "ollama":
		return openai.New(openai.Options{BaseURL: cfg.Providers.Ollama.BaseURL, Name: "ollama"})
	case "anthropic":
		c := cfg.Providers.Anthropic
		key := f.key(c.APIKeyEnv)
		if key == "" {
			return nil, fmt.Errorf("the anthropic provider needs an API key: set %s (or providers.anthropic.api_key_env), or pick another model with --model", c.APIKeyEnv)
		}
		return anthropic.New(anthropic.Options{BaseURL: c.BaseURL, APIKey: key, APIKeyEnv: c.APIKeyEnv})
	}
	known := append([]string(nil), Known...)
	sort.Strings(known)
	return nil, fmt.Errorf("unknown provider %q in model %q: known providers are %s", model.Provider, model, strings.Join(known, ", "))
}

func isOfficialOpenAI(base string) bool {
	return base == "" || strings.Contains(base, "api.openai.com")
}
