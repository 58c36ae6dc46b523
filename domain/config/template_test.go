package config

import (
	"strings"
	"testing"
)

func TestRenderTemplate(t *testing.T) {
	t.Parallel()
	values := map[string]any{"name": "Ada", "n": int64(3), "user": map[string]any{"lang": "Go"}, "tags": []any{"a", "b"}}
	ok := []struct{ in, want string }{
		{"Hello {{ name }}!", "Hello Ada!"},
		{"{{name}} writes {{ user.lang }}", "Ada writes Go"},
		{"{{- n -}} times, tags {{ tags }}", "3 times, tags [\"a\",\"b\"]"},
		{"no variables {here}", "no variables {here}"},
	}
	for _, tt := range ok {
		got, err := RenderTemplate(tt.in, values)
		if err != nil || got != tt.want {
			t.Errorf("RenderTemplate(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	bad := []struct{ in, want string }{
		{"Hi {{ missing }}", "template variable missing has no value: set template.values.missing"},
		{"Hi {{ user.name }}", "template variable user.name has no value"},
		{"{{ name | upper }}", "no filters or expressions"},
		{"{% if x %}y{% endif %}", "no {% %} tags"},
	}
	for _, tt := range bad {
		_, err := RenderTemplate(tt.in, values)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("RenderTemplate(%q) error = %v, want one line with %q", tt.in, err, tt.want)
		}
	}
}
