package config

import (
	"reflect"
	"testing"
)

func TestRedact(t *testing.T) {
	tree := map[string]any{
		"assistant": map[string]any{"model": map[string]any{"id": "anthropic/claude"}, "max_tokens": int64(4096)},
		"providers": map[string]any{
			"anthropic": map[string]any{
				"base_url":    "https://example.test",
				"api_key_env": "ANTHROPIC_API_KEY",
				"headers":     map[string]any{"X-Api-Key": "sk-live", "X-Trace": "on"},
			},
		},
		"mcp": map[string]any{"servers": map[string]any{"gh": map[string]any{
			"command":          []any{"gh-mcp", "--stdio"},
			"env":              map[string]string{"GITHUB_TOKEN": "ghp_x", "DEBUG": "1"},
			"bearer_token_env": "GITHUB_TOKEN",
			"oauth":            map[string]any{"client_id": "app", "client_secret": "s3"},
			"extra":            []map[string]any{{"session_token": "t0", "n": int64(1)}},
		}}},
		"tools":    []any{map[string]any{"name": "x", "auth_token": "tk"}},
		"keys":     []string{"not", "secret"},
		"password": "pw",
	}
	orig := Clone(tree)
	got := Redact(tree)
	want := map[string]any{
		"assistant": map[string]any{"model": map[string]any{"id": "anthropic/claude"}, "max_tokens": int64(4096)},
		"providers": map[string]any{
			"anthropic": map[string]any{
				"base_url":    "https://example.test",
				"api_key_env": "ANTHROPIC_API_KEY",
				"headers":     map[string]any{"X-Api-Key": Redacted, "X-Trace": Redacted},
			},
		},
		"mcp": map[string]any{"servers": map[string]any{"gh": map[string]any{
			"command":          []any{"gh-mcp", "--stdio"},
			"env":              map[string]string{"GITHUB_TOKEN": Redacted, "DEBUG": Redacted},
			"bearer_token_env": "GITHUB_TOKEN",
			"oauth":            map[string]any{"client_id": "app", "client_secret": Redacted},
			"extra":            []map[string]any{{"session_token": Redacted, "n": int64(1)}},
		}}},
		"tools":    []any{map[string]any{"name": "x", "auth_token": Redacted}},
		"keys":     []string{"not", "secret"},
		"password": Redacted,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Redact =\n%#v\nwant\n%#v", got, want)
	}
	if !reflect.DeepEqual(tree, orig) {
		t.Fatal("Redact changed its input")
	}
	if Redact("plain") != "plain" || Redact(int64(3)) != int64(3) || Redact(nil) != nil {
		t.Fatal("Redact of a scalar must return it")
	}
}
