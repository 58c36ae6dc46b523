package config

import (
	"fmt"
	"slices"
	"strings"
)

// ResolveModel turns a model name as written in --model or
// assistant.model.id into "<provider>/<model>": an alias of
// assistant.model.aliases, else of providers.llm.aliases (an alias may name
// another alias), else the name itself. A chain of aliases that loops is
// an error.
func (c Config) ResolveModel(name string) (string, error) {
	seen := []string{}
	for {
		target, ok := c.Assistant.Model.Aliases[name]
		if !ok {
			target, ok = c.Providers.LLM.Aliases[name]
		}
		if !ok {
			return name, nil
		}
		if slices.Contains(seen, name) {
			return "", fmt.Errorf("model aliases loop: %s -> %s", strings.Join(seen, " -> "), name)
		}
		seen = append(seen, name)
		name = target
	}
}

// ModelAliases returns the names of every model alias, sorted.
func (c Config) ModelAliases() []string {
	var names []string
	for n := range c.Assistant.Model.Aliases {
		names = append(names, n)
	}
	for n := range c.Providers.LLM.Aliases {
		if _, dup := c.Assistant.Model.Aliases[n]; !dup {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}
