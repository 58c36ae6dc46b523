package config

import (
	"reflect"
	"strings"
)

// Changed returns the keys of changes whose value differs from the value
// the same key has in before, as a tree of those keys alone (nil when none
// differs): the delta a run records in its conversation (the Rust jp's
// PartialAppConfig::delta). Tables are compared key by key; any other
// value (arrays included) whole. Numbers compare by value, whatever their
// Go type.
func Changed(before, changes map[string]any) map[string]any {
	var out map[string]any
	for k, v := range changes {
		if sub, ok := v.(map[string]any); ok {
			bsub, _ := before[k].(map[string]any)
			if d := Changed(bsub, sub); len(d) > 0 {
				if out == nil {
					out = map[string]any{}
				}
				out[k] = d
			} else if _, had := before[k]; !had && len(sub) == 0 {
				continue
			}
			continue
		}
		if old, had := before[k]; had && sameValue(old, v) {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = cloneValue(v)
	}
	return out
}

// SameValue compares two tree values, numbers by value ([]string as
// []any of strings).
func SameValue(a, b any) bool { return sameValue(a, b) }

// sameValue compares two tree values, numbers by value.
func sameValue(a, b any) bool {
	if s, ok := b.([]string); ok {
		l := make([]any, len(s))
		for i, x := range s {
			l[i] = x
		}
		b = l
	}
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// RustModelID is a model ID as the Rust jp writes it in a configuration
// delta: { "provider", "name" }, in that order.
type RustModelID struct {
	Provider string `json:"provider"`
	Name     string `json:"name"`
}

// RustDeltaShape returns a copy of a delta tree in the shape the Rust jp
// writes in a config_delta: assistant.model.id "provider/name" as
// RustModelID (this jp reads both).
func RustDeltaShape(tree map[string]any) map[string]any {
	out := Clone(tree)
	a, _ := out["assistant"].(map[string]any)
	m, _ := a["model"].(map[string]any)
	if id, ok := m["id"].(string); ok {
		if p, n, ok := strings.Cut(id, "/"); ok && p != "" && n != "" {
			m["id"] = RustModelID{Provider: p, Name: n}
		}
	}
	return out
}

// WithoutSecrets returns a copy of a delta tree without the values Redact
// hides (headers, env values, tokens, keys, ...), and the dot paths it
// left out: a conversation's recorded configuration, which the checkout
// may commit, never holds a secret.
func WithoutSecrets(tree map[string]any) (map[string]any, []string) {
	red, _ := Redact(tree).(map[string]any)
	var dropped []string
	var walk func(src, r map[string]any, prefix []string) map[string]any
	walk = func(src, r map[string]any, prefix []string) map[string]any {
		out := map[string]any{}
		for k, v := range src {
			p := append(append([]string(nil), prefix...), k)
			if sub, ok := v.(map[string]any); ok {
				rsub, _ := r[k].(map[string]any)
				if d := walk(sub, rsub, p); len(d) > 0 {
					out[k] = d
				}
				continue
			}
			if !sameValue(v, r[k]) {
				dropped = append(dropped, JoinPath(p...))
				continue
			}
			out[k] = cloneValue(v)
		}
		return out
	}
	out := walk(tree, red, nil)
	if len(out) == 0 {
		out = nil
	}
	return out, dropped
}
