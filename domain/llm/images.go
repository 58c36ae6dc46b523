package llm

import "strings"

// textOnlyModels are model name prefixes, per provider, of models known
// not to read images. Anything not listed is sent the image and left to
// the provider: a list of the models that do read images would go stale
// with every release, while text-only families are few and old.
var textOnlyModels = map[string][]string{
	"openai":    {"gpt-3.5", "gpt-4-0", "gpt-4-32k", "o1-mini", "o1-preview", "o3-mini", "gpt-oss"},
	"anthropic": {"claude-2", "claude-instant", "claude-3-5-haiku"},
	"deepseek":  {""},
	"cerebras":  {""},
}

// TakesImages reports whether model may be sent image attachments: false
// only for the models known to read text alone.
func TakesImages(model ModelID) bool {
	for _, prefix := range textOnlyModels[model.Provider] {
		if strings.HasPrefix(model.Model, prefix) {
			return false
		}
	}
	return true
}
