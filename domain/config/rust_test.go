package config

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestExpandCommand(t *testing.T) {
	cc := CommandContext{Tool: "fs_read", Arguments: json.RawMessage(`{"path":"a b.txt","n":3}`), Root: "/w"}
	got, err := ExpandCommand([]string{"just", "serve-tools", "{{context}}", "{{ tool }}", "{{tool.name}}:{{tool.arguments.path}}", "{{tool.arguments.n}}", "{{tool.arguments.missing}}", "{{context.root}}", "{{tool.arguments}}"}, cc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"just", "serve-tools",
		`{"action":"run","root":"/w"}`,
		`{"answers":{},"arguments":{"path":"a b.txt","n":3},"name":"fs_read"}`,
		"fs_read:a b.txt", "3", "", "/w", `{"path":"a b.txt","n":3}`}
	if !slices.Equal(got, want) {
		t.Errorf("ExpandCommand:\n got %q\nwant %q", got, want)
	}
	for _, bad := range []string{"{{nope}}", "{{tool", "{{context.cwd}}"} {
		if _, err := ExpandCommand([]string{bad}, cc); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	// No placeholder: the arguments are left exactly as written.
	if got, _ := ExpandCommand([]string{"a", "{b}", "}}"}, cc); !slices.Equal(got, []string{"a", "{b}", "}}"}) {
		t.Errorf("literal arguments changed: %q", got)
	}
}

func TestSystemPromptFromAssistant(t *testing.T) {
	a := Assistant{
		SystemPrompt: "  Base.  ",
		SystemPromptSections: []PromptSection{
			{Content: "late", Position: 5},
			{Content: "tagged", Tag: "rules"},
			{Content: "  "},
			{Content: "early", Position: -1},
			{Content: "second zero"},
		},
	}
	want := "Base.\n\nearly\n\n<rules>\ntagged\n</rules>\n\nsecond zero\n\nlate"
	if got := (Config{Assistant: a}).SystemPrompt(); got != want {
		t.Errorf("SystemPrompt:\n got %q\nwant %q", got, want)
	}
	if got := (Config{}).SystemPrompt(); got != "" {
		t.Errorf("empty: %q", got)
	}
}

func TestResolveModel(t *testing.T) {
	c := Default()
	c.Assistant.Model.Aliases = map[string]string{"fast": "anthropic/claude-haiku-4-5", "quick": "fast", "a": "b"}
	c.Providers.LLM.Aliases = map[string]string{"fast": "openai/gpt-4o-mini", "smart": "anthropic/claude-opus-4-1", "b": "a"}
	cases := map[string]string{"fast": "anthropic/claude-haiku-4-5", "quick": "anthropic/claude-haiku-4-5", "smart": "anthropic/claude-opus-4-1", "demo/echo": "demo/echo"}
	for in, want := range cases {
		if got, err := c.ResolveModel(in); err != nil || got != want {
			t.Errorf("ResolveModel(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := c.ResolveModel("a"); err == nil || !strings.Contains(err.Error(), "a -> b -> a") {
		t.Errorf("loop: %v", err)
	}
	if got := c.ModelAliases(); !slices.Equal(got, []string{"a", "b", "fast", "quick", "smart"}) {
		t.Errorf("ModelAliases = %q", got)
	}
}

func TestTolerated(t *testing.T) {
	yes := []string{"style", "style.code.copy_link", "conversation.tools.x.source", "mcp.servers.gh.tools", "providers.llm.openai.base_url", "assistant.model.parameters.max_tokens"}
	no := []string{"styles", "assistant.system_promt", "conversation.tools.x.comand", "mcp.servers.gh.comand", "query.lop", "conversation.toolz"}
	for _, k := range yes {
		if !Tolerated(strings.Split(k, ".")) {
			t.Errorf("%s not tolerated", k)
		}
	}
	for _, k := range no {
		if Tolerated(strings.Split(k, ".")) {
			t.Errorf("%s tolerated: a typo of a jp key must stay an error", k)
		}
	}
	if !TolerableTable([]string{"editor"}, map[string]any{"cmd": "vi", "envs": map[string]any{}}) {
		t.Error("[editor] of Rust keys not tolerated")
	}
	if TolerableTable([]string{"editor"}, map[string]any{"cmd": "vi", "bogus": 1}) {
		t.Error("[editor] with a non-Rust key tolerated")
	}
}

func TestParameterSchemaKeepsJSONSchema(t *testing.T) {
	js := map[string]any{"type": "object", "properties": map[string]any{}}
	if got := (Tool{Parameters: js}).ParameterSchema(); got["type"] != "object" || len(got) != 2 {
		t.Errorf("JSON Schema changed: %v", got)
	}
	if got := (Tool{}).ParameterSchema(); got["type"] != "object" {
		t.Errorf("no parameters: %v", got)
	}
	nested := Tool{Parameters: map[string]any{"opts": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string", "required": true}}}}}
	got := nested.ParameterSchema()["properties"].(map[string]any)["opts"].(map[string]any)
	if r := got["required"].([]any); len(r) != 1 || r[0] != "x" {
		t.Errorf("nested properties: %v", got)
	}
}
