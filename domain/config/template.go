package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Template is the [template] table: the values jp query -% fills in.
type Template struct {
	Values map[string]any `toml:"values" doc:"Values for jp query -% (--template): the message is a template, and {{ name }} (or {{ name.key }} for a table) is replaced by template.values.name. A variable without a value stops the query with one line naming it."`
}

var (
	// Compiled on first use, not at every start of jp.
	templateExpr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{-?\s*(.*?)\s*-?\}\}`) })
	templatePath = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	})
)

// RenderTemplate renders the message text of jp query -%: each
// {{ name }} or {{ name.key }} is replaced by that value of values (a
// string as it is, another value as JSON). The Rust jp renders with
// Jinja; this renders its variables only, and refuses, in one line,
// tags ({% %}), filters and expressions, and a variable without a value.
func RenderTemplate(text string, values map[string]any) (string, error) {
	if i := strings.Index(text, "{%"); i >= 0 {
		return "", fmt.Errorf("template: %q: only {{ name }} variables are supported (no {%% %%} tags)", snippet(text[i:]))
	}
	var firstErr error
	out := templateExpr().ReplaceAllStringFunc(text, func(m string) string {
		if firstErr != nil {
			return m
		}
		expr := templateExpr().FindStringSubmatch(m)[1]
		if !templatePath().MatchString(expr) {
			firstErr = fmt.Errorf("template: %s: only {{ name }} or {{ name.key }} variables are supported (no filters or expressions)", m)
			return m
		}
		var v any = values
		for _, seg := range strings.Split(expr, ".") {
			t, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			if v, ok = t[seg]; !ok {
				v = nil
				break
			}
		}
		if v == nil {
			firstErr = fmt.Errorf("template variable %s has no value: set template.values.%s (e.g. --cfg 'template.values.%s=...')", expr, expr, expr)
			return m
		}
		if s, ok := v.(string); ok {
			return s
		}
		b, err := json.Marshal(v)
		if err != nil {
			firstErr = fmt.Errorf("template variable %s: %v", expr, err)
			return m
		}
		return string(b)
	})
	return out, firstErr
}

func snippet(s string) string {
	if i := strings.Index(s, "%}"); i >= 0 && i < 60 {
		return s[:i+2]
	}
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}
