package config

import (
	"reflect"
	"testing"
)

func TestChanged(t *testing.T) {
	before := map[string]any{
		"assistant": map[string]any{"model": map[string]any{"id": "demo/echo", "parameters": map[string]any{"max_tokens": int64(100)}}},
		"query":     map[string]any{"loop": "never"},
		"list":      []any{"a", "b"},
	}
	changes := map[string]any{
		"assistant": map[string]any{"model": map[string]any{"id": "demo/echo", "parameters": map[string]any{"max_tokens": float64(200)}}},
		"query":     map[string]any{"loop": "never"},
		"list":      []any{"a", "b"},
		"new":       map[string]any{"k": true},
	}
	got := Changed(before, changes)
	want := map[string]any{
		"assistant": map[string]any{"model": map[string]any{"parameters": map[string]any{"max_tokens": float64(200)}}},
		"new":       map[string]any{"k": true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Numbers compare by value; nothing changed is nil.
	if got := Changed(map[string]any{"n": int64(2)}, map[string]any{"n": float64(2)}); got != nil {
		t.Fatalf("same number: %v", got)
	}
	if got := Changed(before, map[string]any{"list": []any{"a"}}); !reflect.DeepEqual(got, map[string]any{"list": []any{"a"}}) {
		t.Fatalf("array: %v", got)
	}
}

func TestRustDeltaShape(t *testing.T) {
	in := map[string]any{"assistant": map[string]any{"model": map[string]any{"id": "anthropic/claude-x"}}}
	got := RustDeltaShape(in)
	want := map[string]any{"assistant": map[string]any{"model": map[string]any{"id": RustModelID{Provider: "anthropic", Name: "claude-x"}}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	if in["assistant"].(map[string]any)["model"].(map[string]any)["id"] != "anthropic/claude-x" {
		t.Fatal("input changed")
	}
}

func TestWithoutSecrets(t *testing.T) {
	in := map[string]any{
		"assistant": map[string]any{"system_prompt": "terse"},
		"mcp":       map[string]any{"servers": map[string]any{"x": map[string]any{"headers": map[string]any{"Authorization": "Bearer s3cret"}, "url": "http://x"}}},
		"providers": map[string]any{"openai": map[string]any{"api_key": "sk-123"}},
	}
	got, dropped := WithoutSecrets(in)
	want := map[string]any{
		"assistant": map[string]any{"system_prompt": "terse"},
		"mcp":       map[string]any{"servers": map[string]any{"x": map[string]any{"url": "http://x"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	if len(dropped) != 2 {
		t.Fatalf("dropped %v", dropped)
	}
}
