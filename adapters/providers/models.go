package providers

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/jpcli/jp/adapters/llm/ollama"
	"github.com/jpcli/jp/domain/config"
)

// listTimeout bounds one provider's listing request.
const listTimeout = 15 * time.Second

// ListModels returns the model names (without the provider prefix) that
// provider's listing endpoint reports: /v1/models (OpenAI, Anthropic and
// the OpenAI-compatible services), Gemini's models, Ollama's /api/tags,
// llama.cpp's /props. The error is one line.
func (f *Factory) ListModels(ctx context.Context, cfg config.Config, provider string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	hc := f.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	l := &listing{ctx: ctx, hc: hc, provider: provider}
	switch provider {
	case "demo":
		return []string{"echo"}, nil
	case "openai":
		return f.listOpenAI(l, cfg)
	case "anthropic":
		return f.listAnthropic(l, cfg)
	case "ollama":
		return f.listOllama(l, cfg)
	case "llamacpp":
		return f.listLlamaCpp(l, cfg)
	case "google":
		return f.listGoogle(l, cfg)
	}
	return f.listCompatible(l, cfg)
}

// listing is one provider's model listing request.
type listing struct {
	ctx      context.Context
	hc       *http.Client
	provider string
}

// get fetches url with header and decodes its JSON into v; the error is
// one line naming the provider.
func (l *listing) get(url string, header map[string]string, v any) error {
	req, err := http.NewRequestWithContext(l.ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("%s: %v", l.provider, err)
	}
	for k, val := range header {
		req.Header.Set(k, val)
	}
	res, err := l.hc.Do(req)
	if err != nil {
		if l.provider == "ollama" {
			return ollama.ConnectError(l.ctx, strings.TrimSuffix(url, "/api/tags"), err)
		}
		return fmt.Errorf("%s: connection failed: %v", l.provider, err)
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode >= 300 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		return fmt.Errorf("%s: listing models: HTTP %d: %s", l.provider, res.StatusCode, errorMessage(b))
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s: listing models: %v", l.provider, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: the model listing at %s is not the expected JSON: %v", l.provider, url, err)
	}
	return nil
}

// getIDs fetches an OpenAI-style listing ({"data":[{"id"}]}) and returns
// its IDs sorted.
func (l *listing) getIDs(url string, header map[string]string) ([]string, error) {
	var data struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	err := l.get(url, header, &data)
	var out []string
	for _, d := range data.Data {
		out = append(out, d.ID)
	}
	return sorted(out), err
}

// bearer is the Authorization header of key, none without one.
func bearer(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{"Authorization": "Bearer " + key}
}

func (f *Factory) listOpenAI(l *listing, cfg config.Config) ([]string, error) {
	c := cfg.Providers.OpenAI
	base := c.BaseURL
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	key := f.key(c.APIKeyEnv)
	if key == "" && isOfficialOpenAI(base) {
		return nil, missingKey("openai", c.APIKeyEnv)
	}
	return l.getIDs(strings.TrimRight(base, "/")+"/models", bearer(key))
}

func (f *Factory) listAnthropic(l *listing, cfg config.Config) ([]string, error) {
	c := cfg.Providers.Anthropic
	key := f.key(c.APIKeyEnv)
	if key == "" {
		return nil, missingKey("anthropic", c.APIKeyEnv)
	}
	base := c.BaseURL
	if base == "" {
		base = "https://api.anthropic.com"
	}
	return l.getIDs(strings.TrimRight(base, "/")+"/v1/models?limit=1000", map[string]string{"x-api-key": key, "anthropic-version": "2023-06-01"})
}

// listOllama reads Ollama's /api/tags.
func (f *Factory) listOllama(l *listing, cfg config.Config) ([]string, error) {
	c := cfg.Providers.Ollama
	base, err := ollama.BaseURL(c.BaseURL)
	if err != nil {
		return nil, err
	}
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	err = l.get(base+"/api/tags", bearer(f.key(c.APIKeyEnv)), &tags)
	var out []string
	for _, m := range tags.Models {
		out = append(out, m.Name)
	}
	return sorted(out), err
}

// listLlamaCpp reads llama.cpp's /props: the one model it serves.
func (f *Factory) listLlamaCpp(l *listing, cfg config.Config) ([]string, error) {
	c := cfg.Providers.LlamaCpp
	base := strings.TrimSuffix(strings.TrimRight(c.BaseURL, "/"), "/v1")
	var props struct {
		ModelAlias string `json:"model_alias"`
		ModelPath  string `json:"model_path"`
	}
	if err := l.get(base+"/props", bearer(f.key(c.APIKeyEnv)), &props); err != nil {
		return nil, err
	}
	switch {
	case props.ModelAlias != "":
		return []string{props.ModelAlias}, nil
	case props.ModelPath != "":
		return []string{path.Base(props.ModelPath)}, nil
	}
	return nil, nil
}

// listGoogle reads Gemini's models, those that generate content.
func (f *Factory) listGoogle(l *listing, cfg config.Config) ([]string, error) {
	key, env := f.googleKey(cfg)
	if key == "" {
		return nil, fmt.Errorf("the google provider needs an API key: set %s or GOOGLE_API_KEY", env)
	}
	base := strings.TrimRight(cfg.Providers.Google.BaseURL, "/")
	var models struct {
		Models []struct {
			Name    string   `json:"name"`
			Methods []string `json:"supportedGenerationMethods"`
		} `json:"models"`
	}
	err := l.get(base+"/v1beta/models?pageSize=1000", map[string]string{"x-goog-api-key": key}, &models)
	var out []string
	for _, m := range models.Models {
		if len(m.Methods) == 0 || slices.Contains(m.Methods, "generateContent") {
			out = append(out, strings.TrimPrefix(m.Name, "models/"))
		}
	}
	return sorted(out), err
}

// listCompatible lists an OpenAI-compatible service's /models: a known
// one or one the user named.
func (f *Factory) listCompatible(l *listing, cfg config.Config) ([]string, error) {
	provider := l.provider
	base, env := "", ""
	if c, ok := CompatibleConfig(cfg, provider); ok {
		base, env = c.BaseURL, c.APIKeyEnv
	} else if n, ok := cfg.Providers.Named[provider]; ok {
		base, env = n.BaseURL, n.APIKeyEnv
	} else {
		return nil, fmt.Errorf("unknown provider %q: known providers are %s", provider, strings.Join(Names(cfg), ", "))
	}
	key := f.key(env)
	if key == "" && env != "" {
		return nil, missingKey(provider, env)
	}
	if base == "" {
		return nil, fmt.Errorf("providers.%s.base_url is not set", provider)
	}
	return l.getIDs(strings.TrimRight(base, "/")+"/models", bearer(key))
}

func sorted(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// Listable are the providers `jp model ls` lists without an argument:
// the demo, each provider whose key variable is set, and the user's own.
func (f *Factory) Listable(cfg config.Config) []string {
	out := []string{"demo"}
	for _, p := range Names(cfg) {
		if p == "demo" {
			continue
		}
		if _, named := cfg.Providers.Named[p]; named || f.HasKey(cfg, p) {
			out = append(out, p)
		}
	}
	return out
}

// Providers are every provider name cfg knows (ports.ModelLister).
func (f *Factory) Providers(cfg config.Config) []string { return Names(cfg) }

// HowToEnable is the package's HowToEnable (ports.ModelLister).
func (f *Factory) HowToEnable(cfg config.Config, provider string) string {
	return HowToEnable(cfg, provider)
}

// HowToEnable says in a few words what makes provider's models usable:
// the variable holding its key, or the local server it talks to.
func HowToEnable(cfg config.Config, provider string) string {
	switch provider {
	case "demo":
		return "always there (offline)"
	case "google":
		env := cmp.Or(cfg.Providers.Google.APIKeyEnv, "GEMINI_API_KEY")
		return "set " + env + " or GOOGLE_API_KEY"
	case "ollama":
		return "run an Ollama server at " + cmp.Or(cfg.Providers.Ollama.BaseURL, ollama.DefaultBaseURL) + " (no key needed); jp model ls ollama lists it"
	case "llamacpp":
		return "run llama-server at " + cfg.Providers.LlamaCpp.BaseURL + " (no key needed); jp model ls llamacpp lists it"
	}
	env := ""
	switch provider {
	case "openai":
		env = cfg.Providers.OpenAI.APIKeyEnv
	case "anthropic":
		env = cfg.Providers.Anthropic.APIKeyEnv
	default:
		if c, ok := CompatibleConfig(cfg, provider); ok {
			env = c.APIKeyEnv
		} else if n, ok := cfg.Providers.Named[provider]; ok {
			env = n.APIKeyEnv
		}
	}
	if env == "" {
		return "set providers." + provider + ".api_key_env to the variable holding its key"
	}
	return "set " + env
}

// errorMessage is the message of an error body ({"error":{"message"}},
// {"error":"..."}), on one line.
func errorMessage(body []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &v) == nil && len(v.Error) > 0 {
		var s string
		var inner struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &s) == nil {
			msg = s
		} else if json.Unmarshal(v.Error, &inner) == nil && inner.Message != "" {
			msg = inner.Message
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return msg
}
