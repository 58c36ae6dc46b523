package tomlconfig

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	toml "github.com/pelletier/go-toml/v2"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/ports"
)

func TestRender(t *testing.T) {
	r := load(t, ports.ConfigSource{Overrides: []string{`mcp.servers.fs.command=["npx", "srv"]`}})
	l := trusting()

	t.Run("toml tree round-trips", func(t *testing.T) {
		b, err := l.Render(r.Tree, "toml")
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := toml.Unmarshal(b, &back); err != nil {
			t.Fatalf("rendered TOML does not parse: %v\n%s", err, b)
		}
		if !reflect.DeepEqual(back, r.Tree) {
			t.Errorf("round trip differs:\n%s", b)
		}
		if !strings.Contains(string(b), "[interrupt.loop_countdown]\n") {
			t.Errorf("no [interrupt.loop_countdown] table:\n%s", b)
		}
		// Tables are sorted: [assistant] comes before [query].
		if strings.Index(string(b), "[assistant") > strings.Index(string(b), "[query]") {
			t.Errorf("tables not sorted:\n%s", b)
		}
	})
	t.Run("json tree round-trips", func(t *testing.T) {
		b, err := l.Render(r.Tree, "json")
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("rendered JSON does not parse: %v", err)
		}
		if back["query"].(map[string]any)["loop"] != "if_pending" || !strings.HasPrefix(string(b), "{\n  \"") {
			t.Errorf("unexpected JSON:\n%s", b)
		}
	})
	t.Run("subtree and scalars", func(t *testing.T) {
		sub, _ := config.Lookup(r.Tree, "interrupt.streaming")
		tests := []struct {
			v      any
			format string
			want   string
		}{
			{sub, "toml", "action = 'prompt'\ncompose_in_editor = false\n"},
			{sub, "json", "{\n  \"action\": \"prompt\",\n  \"compose_in_editor\": false\n}\n"},
			{"if_pending", "toml", "'if_pending'\n"},
			{"if_pending", "json", "\"if_pending\"\n"},
			{int64(10), "toml", "10\n"},
			{[]any{"npx", "srv"}, "toml", "['npx', 'srv']\n"},
			{"<a&b>", "json", "\"<a&b>\"\n"},
		}
		for _, tt := range tests {
			b, err := l.Render(tt.v, tt.format)
			if err != nil || string(b) != tt.want {
				t.Errorf("Render(%v, %s) = %q, %v; want %q", tt.v, tt.format, b, err, tt.want)
			}
		}
	})
	t.Run("typed config renders as its tree", func(t *testing.T) {
		a, _ := l.Render(r.Config, "json")
		b, _ := l.Render(r.Tree, "json")
		if string(a) != string(b) {
			t.Errorf("Render(Config) differs from Render(Tree)")
		}
	})
	t.Run("unknown format", func(t *testing.T) {
		if _, err := l.Render(r.Tree, "yaml"); err == nil || !strings.Contains(err.Error(), `unknown format "yaml"`) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestSchema(t *testing.T) {
	b, err := New().Schema()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	get := func(path ...string) any {
		var cur any = doc
		for _, p := range path {
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("schema has no %s", strings.Join(path, "/"))
			}
			cur = m[p]
		}
		return cur
	}
	checks := []struct {
		path []string
		want any
	}{
		{[]string{"$schema"}, "https://json-schema.org/draft/2020-12/schema"},
		{[]string{"additionalProperties"}, false},
		{[]string{"properties", "query", "properties", "loop", "enum"}, []any{"never", "if_pending", "always"}},
		{[]string{"properties", "query", "properties", "loop", "default"}, "if_pending"},
		{[]string{"properties", "query", "additionalProperties"}, false},
		{[]string{"properties", "query", "properties", "compose_in_editor", "enum"}, []any{false, true, "always", "never"}},
		{[]string{"properties", "interrupt", "properties", "streaming", "properties", "action", "enum"},
			[]any{"prompt", "continue", "reply", "queue_reply", "stop", "abort"}},
		{[]string{"properties", "interrupt", "properties", "loop_countdown", "properties", "duration_secs", "default"}, 10.0},
		{[]string{"properties", "mcp", "properties", "max_instances", "minimum"}, 1.0},
		{[]string{"properties", "mcp", "properties", "servers", "additionalProperties", "properties", "enable", "default"}, true},
		{[]string{"properties", "mcp", "properties", "servers", "additionalProperties", "additionalProperties"}, false},
		{[]string{"properties", "conversation", "properties", "tools", "properties", "defaults", "properties", "run", "default"}, "ask"},
		{[]string{"properties", "conversation", "properties", "tools", "additionalProperties", "properties", "parameters", "type"}, "object"},
		{[]string{"properties", "plugins", "properties", "command", "additionalProperties", "properties", "checksum", "properties", "algorithm", "default"}, "sha256"},
	}
	for _, c := range checks {
		if got := get(c.path...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %#v, want %#v", strings.Join(c.path, "/"), got, c.want)
		}
	}
	if s, _ := get("properties", "query", "properties", "loop", "description").(string); !strings.Contains(s, "if_pending") {
		t.Errorf("query.loop has no useful description: %q", s)
	}
	assertDescribed(t, doc, "")
}

// assertDescribed checks that every property of every table in the schema
// carries a description.
func assertDescribed(t *testing.T, s map[string]any, path string) {
	t.Helper()
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		ps := p.(map[string]any)
		if d, _ := ps["description"].(string); d == "" {
			t.Errorf("%s.%s has no description", path, name)
		}
		assertDescribed(t, ps, path+"."+name)
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		assertDescribed(t, ap, path+".*")
	}
}

// TestSchemaValidates checks the schema with an independent JSON Schema
// implementation: it is well-formed, its defaults match it, the resolved
// trees satisfy it, and what the loader rejects it rejects too.
func TestSchemaValidates(t *testing.T) {
	b, err := New().Schema()
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatalf("schema does not resolve: %v", err)
	}
	asJSON := func(v any) any {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var out any
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}

	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), `
[query]
loop = "never"
compose_in_editor = "always"
[conversation.tools.fs_read]
command = ["./fs.sh"]
description = "read a file"
parameters = { type = "object" }
[mcp.servers.everything]
command = ["npx", "srv"]
env = { A = "b" }
[plugins.command.titles]
run = "unattended"
checksum = { value = "ab" }
options = { n = 3 }
`)
	for _, src := range []ports.ConfigSource{{}, w.source(nil, nil)} {
		if err := rs.Validate(asJSON(load(t, src).Tree)); err != nil {
			t.Errorf("resolved tree does not satisfy the schema: %v", err)
		}
	}
	for _, bad := range []map[string]any{
		{"query": map[string]any{"loop": "sometimes"}},
		{"query": map[string]any{"lop": "never"}},
		{"mcp": map[string]any{"max_instances": 0}},
		{"mcp": map[string]any{"servers": map[string]any{"x": map[string]any{"enable": "yes"}}}},
		{"conversation": map[string]any{"tools": map[string]any{"defaults": map[string]any{"command": []any{"x"}}}}},
	} {
		if err := rs.Validate(bad); err == nil {
			t.Errorf("schema accepts %v", bad)
		}
	}
}
