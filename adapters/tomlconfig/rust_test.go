package tomlconfig

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/ports"
)

// rustWorkspace is testdata/rustws: a .jp/ written by hand in the Rust jp's
// configuration shapes (extends with globs and strategies, personas and
// skills, merge tables, aliases, string command templates, and keys this
// jp ignores).
func rustWorkspace(t *testing.T, overrides ...string) (config.Resolved, error) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("testdata", "rustws"))
	if err != nil {
		t.Fatal(err)
	}
	return trusting().Load(context.Background(), ports.ConfigSource{WorkspaceRoot: root, LaunchDir: root, Overrides: overrides})
}

func unsupportedKeys(r config.Resolved) []string {
	var keys []string
	for _, k := range r.Unsupported {
		keys = append(keys, k.Key)
	}
	return keys
}

func TestRustWorkspaceLoads(t *testing.T) {
	t.Parallel()
	r, err := rustWorkspace(t)
	if err != nil {
		t.Fatalf("the Rust workspace does not load: %v", err)
	}
	c := r.Config
	checks := []struct {
		name      string
		got, want any
	}{
		{"model id table", c.Assistant.Model.ID, "anthropic/claude-sonnet-4-5"},
		{"request.max_retries", c.Assistant.Request.MaxRetries, 3},
		// config.toml's prompt is a default (discard_when_merged), so the
		// appended config.d/late.toml (extends, strategy after) replaces it.
		{"system_prompt", c.Assistant.SystemPrompt, "Prefer small commits."},
		{"composed", c.SystemPrompt(), "Prefer small commits.\n\nAlways answer in English.\n\n<testing>\nRun the tests before you say it works.\n</testing>\n\n## How to respond\n\n- Be concise"},
		{"alias table", c.Providers.LLM.Aliases["smart"], "anthropic/claude-opus-4-1"},
		{"load paths", c.ConfigLoadPaths, []string{".jp/config/skill"}},
		{"tool command string", c.Conversation.Tools.Named["fs_read_file"].Command, []string{"just", "serve-tools", "{{context}}", "{{tool}}"}},
		{"tool disabled", c.Conversation.Tools.Named["fs_read_file"].Enabled(), false},
		{"disabled not offered", len(c.LocalTools()), 0},
		{"defaults from '*'", c.Conversation.Tools.Defaults.Run, config.RunPolicyAsk},
		{"mcp server kept", c.MCP.Servers["github"].Command, []string{"github-mcp-server", "stdio"}},
		{"no '*' server", len(c.MCP.Servers), 1},
	}
	for _, tt := range checks {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
	if m, err := c.ResolveModel("fast"); err != nil || m != "anthropic/claude-haiku-4-5" {
		t.Errorf("ResolveModel(fast) = %q, %v", m, err)
	}
	wantSchema := map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"path"},
		"properties": map[string]any{
			"path":  map[string]any{"type": "string", "description": "The path of the file."},
			"lines": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
		},
	}
	if got := c.Conversation.Tools.Named["fs_read_file"].ParameterSchema(); !reflect.DeepEqual(got, wantSchema) {
		t.Errorf("parameters as JSON Schema = %#v", got)
	}

	want := []string{
		"assistant.name", "assistant.request.base_backoff_ms",
		"assistant.request.cache", "assistant.request.max_backoff_secs", "assistant.tool_choice",
		"conversation.attachments", "conversation.inquiry", "conversation.title.generate",
		"conversation.tools.defaults.style",
		"conversation.tools.fs_read_file.examples", "conversation.tools.fs_read_file.format",
		"conversation.tools.fs_read_file.options", "conversation.tools.fs_read_file.questions",
		"conversation.tools.fs_read_file.source",
		"conversation.tools.fs_read_file.style", "conversation.tools.fs_read_file.summary",
		"inherit", `mcp.servers."*"`, "mcp.servers.github.tools",
		"providers.mcp", "style.code.copy_link", // providers.llm.anthropic.api_key_env applies
	}
	got := unsupportedKeys(r)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("unsupported keys:\n got %q\nwant %q", got, want)
	}
	for _, k := range r.Unsupported {
		if k.Source == "" || k.Value == nil {
			t.Errorf("unsupported %s lacks its source or value: %+v", k.Key, k)
		}
	}
	// The ignored keys are in no form of the resolved configuration.
	for _, k := range []string{"style.code.copy_link", "inherit", "providers.mcp", "conversation.tools.fs_read_file.source"} {
		if _, err := config.Lookup(r.Tree, k); err == nil {
			t.Errorf("%s is in the resolved tree", k)
		}
	}
	// Sources: the extended files come before (read.toml) and after
	// (late.toml) the file that extends them.
	var names []string
	for _, s := range r.Sources[1:] {
		names = append(names, filepath.Base(s))
	}
	if !slices.Equal(names, []string{"read.toml", "config.toml", "late.toml"}) {
		t.Errorf("sources = %q", names)
	}
}

func TestRustPersonaByName(t *testing.T) {
	t.Parallel()
	r, err := rustWorkspace(t, "personas/dev")
	if err != nil {
		t.Fatalf("--cfg personas/dev: %v", err)
	}
	c := r.Config
	if got := c.Assistant.SystemPrompt; got != "Prefer small commits.\n\nYou work on jp." {
		t.Errorf("system_prompt = %q", got)
	}
	// extends chain dev -> base: the alias is resolved from the workspace.
	if m, _ := c.ResolveModel(c.Assistant.Model.ID); m != "anthropic/claude-haiku-4-5" {
		t.Errorf("persona model = %q -> %q", c.Assistant.Model.ID, m)
	}
	if got := c.Assistant.SystemPromptParts(); len(got) != 4 || got[1] != "You are the dev persona." {
		t.Errorf("parts = %q (the persona's section, position -5, comes first)", got)
	}
	if got := c.LocalTools(); !slices.Equal(got, []string{"fs_read_file", "git_log"}) {
		t.Errorf("local tools = %q", got)
	}
	if got := c.Conversation.Tools.Named["git_log"].Command; !slices.Equal(got, []string{"git", "log", "--oneline", "{{tool.arguments.range}}"}) {
		t.Errorf("command table = %q", got)
	}
	if !slices.Contains(unsupportedKeys(r), "conversation.tools.git_log.command.shell") {
		t.Errorf("command.shell not reported: %q", unsupportedKeys(r))
	}
	var names []string
	for _, s := range r.Sources {
		names = append(names, filepath.Base(s))
	}
	if !slices.Equal(names[len(names)-3:], []string{"base.toml", "git.toml", "dev.toml"}) {
		t.Errorf("persona sources = %q", names)
	}
}

func TestCfgFileForms(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{
		"git",                         // a name in config_load_paths
		"skill/git",                   // a name under .jp/config
		"skill/git.toml",              // with its extension
		"./.jp/config/skill/git.toml", // a path from the launch directory
		".jp/config/skill/../skill/git.toml",
	} {
		r, err := rustWorkspace(t, arg)
		if err != nil {
			t.Errorf("--cfg %s: %v", arg, err)
			continue
		}
		if !slices.Contains(r.Config.LocalTools(), "git_log") {
			t.Errorf("--cfg %s did not load git.toml", arg)
		}
	}
	abs, _ := filepath.Abs(filepath.Join("testdata", "rustws", ".jp", "config", "skill", "git.toml"))
	if _, err := rustWorkspace(t, abs); err != nil {
		t.Errorf("--cfg ABSOLUTE: %v", err)
	}
}

func TestCfgUnknownName(t *testing.T) {
	t.Parallel()
	cases := []struct{ arg, want string }{
		{"personas/dve", "did you mean personas/dev?"},
		{"dev", "did you mean personas/dev?"},
		{"zzzz", "the names are git, personas/base, personas/dev, skill/git"},
		{"./nope.toml", "no such configuration file"},
	}
	for _, tt := range cases {
		_, err := rustWorkspace(t, tt.arg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--cfg %s: error %v, want one line containing %q", tt.arg, err, tt.want)
		}
		if !errors.Is(err, config.ErrInvalidValue) {
			t.Errorf("--cfg %s: %v is not ErrInvalidValue", tt.arg, err)
		}
	}
}

func TestExtendsCycleRefused(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), `extends = ["config/a.toml"]`)
	writeFile(t, filepath.Join(w.root, ".jp", "config", "a.toml"), `extends = ["b.toml"]`)
	writeFile(t, filepath.Join(w.root, ".jp", "config", "b.toml"), `extends = ["a.toml"]`)
	_, err := trusting().Load(context.Background(), w.source(nil, nil))
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("cycle: %v, want one line", err)
	}
	for _, want := range []string{"cycle", "a.toml -> ", "b.toml -> ", "remove one"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("cycle error %q lacks %q", err, want)
		}
	}
	// A file extending itself.
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), `extends = ["config.toml"]`)
	if _, err := trusting().Load(context.Background(), w.source(nil, nil)); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("self extends: %v", err)
	}
	// A missing file is an error naming the key and file; a glob matching
	// nothing is not.
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), `extends = ["nope.toml"]`)
	if _, err := trusting().Load(context.Background(), w.source(nil, nil)); err == nil || !strings.Contains(err.Error(), "extends in ") {
		t.Errorf("missing extends: %v", err)
	}
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), `extends = ["config.d/**/*.toml"]`)
	load(t, w.source(nil, nil))
}

func TestExtendsDiamondAppendsOnce(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), `extends = ["l.toml", "r.toml"]`)
	writeFile(t, filepath.Join(w.root, ".jp", "l.toml"), `extends = ["base.toml"]`)
	writeFile(t, filepath.Join(w.root, ".jp", "r.toml"), `extends = ["base.toml"]`)
	writeFile(t, filepath.Join(w.root, ".jp", "base.toml"), "[assistant]\nsystem_prompt = { value = \"Be brief.\", strategy = \"append\" }\n")
	if got := load(t, w.source(nil, nil)).Config.Assistant.SystemPrompt; got != "Be brief." {
		t.Errorf("diamond: system_prompt = %q, want the shared block once", got)
	}
}

func TestJPTypoStillRefused(t *testing.T) {
	t.Parallel()
	cases := []struct{ file, want string }{
		{"[assistant]\nsystem_promt = \"x\"\n", "did you mean assistant.system_prompt?"},
		{"[assistant.model]\naliasses = { a = \"b/c\" }\n", "did you mean assistant.model.aliases?"},
		{"[conversation.tools.x]\ncomand = [\"a\"]\n", "did you mean conversation.tools.x.command?"},
		{"[assistant]\nsystem_prompt = { value = \"x\", stratgy = \"append\" }\n", "a merge table has the keys value, strategy"},
		{"[assistant]\nsystem_prompt = { value = \"x\", strategy = \"sideways\" }\n", "expected one of append, prepend, replace"},
		{"[assistant]\nsystem_prompt = { strategy = \"append\" }\n", "a merge table needs a value"},
		{"[assistant]\nsystem_prompt_sections = [1]\n", "expected a string or a table at index 0"},
		{"[assistant]\nsystem_prompt_sections = [{ content = \"a\", tga = \"b\" }]\n", "the keys of [assistant.system_prompt_sections.0] are content, tag, title, position"},
		{"extends = 3\n", "expected an array of paths"},
		{"stlye = {}\n", "unknown configuration key stlye"},
	}
	for _, tt := range cases {
		w := newWorkspace(t)
		writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), tt.file)
		_, err := trusting().Load(context.Background(), w.source(nil, nil))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.file, err, tt.want)
		}
	}
}

func TestMergeStrategies(t *testing.T) {
	t.Parallel()
	root, _ := schema()
	sp := root.at([]string{"assistant", "system_prompt"})
	cases := []struct {
		prev any
		next map[string]any
		want string
	}{
		{"A", map[string]any{"value": "B"}, "A\n\nB"},
		{"A", map[string]any{"value": "B", "strategy": "append", "separator": "none"}, "AB"},
		{"A", map[string]any{"value": "B", "strategy": "prepend", "separator": "line"}, "B\nA"},
		{"A", map[string]any{"value": "B", "strategy": "replace"}, "B"},
		{"A", map[string]any{"value": "B", "strategy": "append_space"}, "A B"},
		{"A", map[string]any{"value": "B", "strategy": "append_line"}, "A\nB"},
		{"", map[string]any{"value": "B", "strategy": "append"}, "B"},
		{nil, map[string]any{"value": "B"}, "B"},
		{"x\nA\ny", map[string]any{"value": "A"}, "x\nA\ny"},                             // block dedup
		{"xAy", map[string]any{"value": "A"}, "xAy\n\nA"},                                // not a block
		{"xAy", map[string]any{"value": "A", "dedup": "contains"}, "xAy"},                // contains
		{"A", map[string]any{"value": "A", "dedup": "off", "separator": "space"}, "A A"}, // off
	}
	for _, tt := range cases {
		if got := newMerger(root).value(tt.prev, tt.next, sp, "p"); got != tt.want {
			t.Errorf("%q + %v = %q, want %q", tt.prev, tt.next, got, tt.want)
		}
	}
	secs := root.at([]string{"assistant", "system_prompt_sections"})
	a, b := map[string]any{"content": "a"}, map[string]any{"content": "b"}
	lists := []struct {
		next any
		want []any
	}{
		{[]any{b}, []any{a, b}}, // a plain array appends, as in the Rust jp
		{map[string]any{"value": []any{b}}, []any{a, b}},
		{map[string]any{"value": []any{b}, "strategy": "prepend"}, []any{b, a}},
		{map[string]any{"value": []any{b}, "strategy": "replace"}, []any{b}},
	}
	for _, tt := range lists {
		if got := newMerger(root).value([]any{a}, tt.next, secs, "p"); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("[a] + %v = %v, want %v", tt.next, got, tt.want)
		}
	}
	// discard_when_merged: the next value replaces whatever its strategy.
	mg := newMerger(root)
	v := mg.value("", map[string]any{"value": "default", "discard_when_merged": true}, sp, "p")
	if got := mg.value(v, map[string]any{"value": "mine", "strategy": "append"}, sp, "p"); got != "mine" {
		t.Errorf("after discard_when_merged: %q", got)
	}
}

func TestMergeTableFromFlagsAndEnv(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), "[assistant]\nsystem_prompt = \"A\"\n")
	r := load(t, w.source(
		[]string{`JP_CFG_ASSISTANT__SYSTEM_PROMPT={ value = "B", strategy = "append", separator = "line" }`},
		[]string{`assistant.system_prompt={ value = "C", strategy = "prepend", separator = "space" }`, "assistant.model.aliases.q=demo/echo"}))
	if got := r.Config.Assistant.SystemPrompt; got != "C A\nB" {
		t.Errorf("system_prompt = %q", got)
	}
	if got, _ := r.Config.ResolveModel("q"); got != "demo/echo" {
		t.Errorf("alias from --cfg: %q", got)
	}
	// config_load_paths appends across layers.
	writeFile(t, filepath.Join(w.user, "config.toml"), `config_load_paths = ["u"]`)
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), `config_load_paths = ["w", "u"]`)
	if got := load(t, w.source(nil, nil)).Config.ConfigLoadPaths; !slices.Equal(got, []string{"u", "w"}) {
		t.Errorf("config_load_paths = %q", got)
	}
}

func TestLoaderReportsOncePerRun(t *testing.T) {
	t.Parallel()
	var notice strings.Builder
	l := NewWithOptions(Options{Notice: &notice, Trust: trustAll{}})
	root, _ := filepath.Abs(filepath.Join("testdata", "rustws"))
	for range 2 {
		if _, err := l.Load(context.Background(), ports.ConfigSource{WorkspaceRoot: root, LaunchDir: root}); err != nil {
			t.Fatal(err)
		}
	}
	out := notice.String()
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "jp: 21 configuration keys not supported by this jp were ignored (conversation.tools.fs_read_file.examples,") {
		t.Errorf("notice = %q", out)
	}
}

func TestNamedProviderTable(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), `[providers.vllm]
kind = "openai-compatible"
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "VLLM_KEY"

[providers.mcp.github]
command = "x"

[providers.openrouter]
api_key_env = "OR_KEY"
`)
	res, err := trusting().Load(context.Background(), w.source(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	p := res.Config.Providers
	if got := p.Named["vllm"]; got != (config.NamedProvider{Kind: "openai-compatible", BaseURL: "http://127.0.0.1:8000/v1", APIKeyEnv: "VLLM_KEY"}) {
		t.Errorf("providers.vllm = %+v", got)
	}
	if _, ok := p.Named["mcp"]; ok {
		t.Error("the Rust jp's providers.mcp became a provider")
	}
	if p.OpenRouter.APIKeyEnv != "OR_KEY" || p.OpenRouter.BaseURL != "https://openrouter.ai/api/v1" {
		t.Errorf("providers.openrouter = %+v", p.OpenRouter)
	}
}

// TestRustKeyShapesLoad loads testdata/rustshapes, the shapes of the Rust
// jp's own .jp/ that this jp reads in another shape: contrast examples,
// instruction positions, the reasoning table with a Rust-only effort,
// section titles and the tool enable strings and tables.
func TestRustKeyShapesLoad(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("testdata", "rustshapes"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := trusting().Load(context.Background(), ports.ConfigSource{WorkspaceRoot: root, LaunchDir: root})
	if err != nil {
		t.Fatalf("the Rust key shapes do not load: %v", err)
	}
	c := r.Config
	wantPrompt := "<challenge title=\"Pushback\">\nPush back with reasons.\n</challenge>\n\n" +
		"## Voice\n\n- Plain words.\n\nExamples:\n- Good: It is.\n  Bad: It serves as.\n  Reason: Say is.\n- Good: Short.\n  Bad: Long.\n\n" +
		"## Late\n\n- Last."
	if got := c.SystemPrompt(); got != wantPrompt {
		t.Errorf("system prompt =\n%s\nwant\n%s", got, wantPrompt)
	}
	if got := c.Assistant.Model.Parameters.Reasoning.String(); got != "high" {
		t.Errorf("reasoning = %q, want high (the Rust xhigh)", got)
	}
	tools := c.Conversation.Tools.Named
	for name, want := range map[string]bool{"git_add": false, "cargo_check": true, "fs_modify": true} {
		if got := tools[name].Enabled(); got != want {
			t.Errorf("%s enabled = %v, want %v", name, got, want)
		}
	}
	got := unsupportedKeys(r)
	for _, k := range []string{
		"assistant.model.parameters.reasoning.exclude",
		"conversation.tools.git_add.enable.allow_toggle",
		"conversation.tools.cargo_check.enable.allow_toggle",
	} {
		if !slices.Contains(got, k) {
			t.Errorf("unsupported keys %v lack %s", got, k)
		}
	}
	if slices.Contains(got, "conversation.tools.fs_modify.enable.allow_toggle") {
		t.Errorf("enable = \"on\" reported as a dropped toggle: %v", got)
	}
}

// TestRustKeyFamiliesLoad loads testdata/rustkeys, a key of each family of
// the Rust jp's configuration that this jp does not act on: each loads,
// and is listed as ignored (what jp config show marks); a file attachment
// table becomes its path.
func TestRustKeyFamiliesLoad(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("testdata", "rustkeys"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := trusting().Load(context.Background(), ports.ConfigSource{WorkspaceRoot: root, LaunchDir: root})
	if err != nil {
		t.Fatalf("the Rust key families do not load: %v", err)
	}
	got := unsupportedKeys(r)
	for _, k := range []string{
		"assistant.name", "assistant.tool_choice", "assistant.request.base_backoff_ms",
		"providers.mcp",
		"conversation.default_id", "conversation.attachments.0",
		"conversation.tools.git_add.source", "conversation.tools.git_add.result",
		"conversation.tools.git_add.summary", "conversation.tools.git_add.style",
		"conversation.tools.git_add.format", "conversation.tools.git_add.questions",
		"conversation.tools.git_add.examples", "editor.envs",
	} {
		found := false
		for _, g := range got {
			found = found || g == k || strings.HasPrefix(g, k+".")
		}
		if !found {
			t.Errorf("unsupported keys %v lack %s", got, k)
		}
	}
	if c := r.Config.Style; !c.Code.Color.Or(false) || c.Reasoning.Display.Mode != "full" {
		t.Errorf("style.code.color and style.reasoning.display are read: %+v", c)
	}
	if slices.Contains(got, "template") || len(r.Config.Template.Values) == 0 {
		t.Errorf("template.values is read (for jp q -%%), not warned: values %v, unsupported %v", r.Config.Template.Values, got)
	}
	if m, err := r.Config.ResolveModel("smart"); err != nil || m != "anthropic/claude-opus-4-1" {
		t.Errorf("alias table: ResolveModel(smart) = %q, %v", m, err)
	}
}

// TestRustFileAttachmentTable: a { type = "file", path } attachment is
// the path; one with params is ignored with a warning.
func TestRustFileAttachmentTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".jp", "config.toml"), `[[conversation.attachments]]
type = "file"
path = "a.md"

[[conversation.attachments]]
type = "file"
path = "b.md"
params = { lines = "1-5" }
`)
	r, err := trusting().Load(context.Background(), ports.ConfigSource{WorkspaceRoot: dir, LaunchDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Config.Conversation.Attachments; !reflect.DeepEqual(got, []string{"a.md"}) {
		t.Errorf("attachments = %#v, want [a.md]", got)
	}
	if got := unsupportedKeys(r); !slices.Contains(got, "conversation.attachments.1") {
		t.Errorf("unsupported keys %v lack conversation.attachments.1", got)
	}
}

// TestRustEnvSpelling: JP_CFG_ variables in the Rust jp's spelling (single
// underscores, read against the schema) set their keys, named entries
// included; this jp's "__" form keeps working.
func TestRustEnvSpelling(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{
		"JP_CFG_ASSISTANT_MODEL_ID=anthropic/claude-haiku-4-5",
		"JP_CFG_INTERRUPT_LOOP_COUNTDOWN_DURATION_SECS=7",
		"JP_CFG_CONVERSATION_TOOLS_FS_READ_FILE_RUN=unattended",
		"JP_CFG_MCP__MAX_INSTANCES=3",
	}
	r, err := trusting().Load(context.Background(), ports.ConfigSource{WorkspaceRoot: dir, LaunchDir: dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Config
	checks := []struct {
		name      string
		got, want any
	}{
		{"assistant.model.id", c.Assistant.Model.ID, "anthropic/claude-haiku-4-5"},
		{"interrupt.loop_countdown.duration_secs", c.Interrupt.LoopCountdown.DurationSecs, 7},
		{"conversation.tools.fs_read_file.run", c.Conversation.Tools.Named["fs_read_file"].Run, config.RunPolicyUnattended},
		{"mcp.max_instances (__ form)", c.MCP.MaxInstances, 3},
	}
	for _, tt := range checks {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
}

// TestInstructionsAppendAcrossFiles: a persona that extends skill files
// keeps their [[assistant.instructions]] and adds its own (the Rust jp's
// vec_with_strategy); a { strategy = "replace", value } table replaces;
// a plain array after a discard_when_merged value replaces it.
func TestInstructionsAppendAcrossFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".jp", "config.toml"), "extends = [\"skill/*.toml\"]\n[[assistant.instructions]]\ntitle = \"Persona\"\n")
	writeFile(t, filepath.Join(dir, ".jp", "skill", "a.toml"), "[[assistant.instructions]]\ntitle = \"A\"\n")
	writeFile(t, filepath.Join(dir, ".jp", "skill", "b.toml"), "[[assistant.instructions]]\ntitle = \"B\"\n")
	titles := func(overrides ...string) []string {
		t.Helper()
		r, err := trusting().Load(context.Background(), ports.ConfigSource{WorkspaceRoot: dir, LaunchDir: dir, Overrides: overrides})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, in := range r.Config.Assistant.Instructions {
			out = append(out, in.Title)
		}
		return out
	}
	if got := titles(); !reflect.DeepEqual(got, []string{"A", "B", "Persona"}) {
		t.Errorf("instructions = %v, want [A B Persona]", got)
	}
	if got := titles(`assistant.instructions={ strategy = "replace", value = [{ title = "Only" }] }`); !reflect.DeepEqual(got, []string{"Only"}) {
		t.Errorf("replace: instructions = %v, want [Only]", got)
	}
}

// TestRustProviderHomes: providers.llm.<p> and providers.mcp.<name> (the
// Rust homes) set this jp's providers.<p> and mcp.servers.<name>; this
// jp's home wins when both are given; and a checkout's server from
// providers.mcp waits for trust like any other.
func TestRustProviderHomes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".jp", "config.toml"), `[providers.llm.anthropic]
base_url = "http://127.0.0.1:9/rust"
api_key_env = "RUST_KEY"
[providers.anthropic]
api_key_env = "GO_KEY"
[providers.mcp.git]
command = "git-mcp"
arguments = ["--stdio"]
optional = true
`)
	src := ports.ConfigSource{WorkspaceRoot: dir, LaunchDir: dir}
	r, err := trusting().Load(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Config
	if c.Providers.Anthropic.BaseURL != "http://127.0.0.1:9/rust" {
		t.Errorf("base_url = %q, want the providers.llm one", c.Providers.Anthropic.BaseURL)
	}
	if c.Providers.Anthropic.APIKeyEnv != "GO_KEY" {
		t.Errorf("api_key_env = %q, want GO_KEY ([providers.anthropic] wins)", c.Providers.Anthropic.APIKeyEnv)
	}
	if got := c.MCP.Servers["git"].Command; !reflect.DeepEqual(got, []string{"git-mcp", "--stdio"}) {
		t.Errorf("mcp.servers.git.command = %q", got)
	}
	uns := unsupportedKeys(r)
	for _, k := range []string{"providers.llm.anthropic.api_key_env", "providers.mcp.git.optional"} {
		if !slices.Contains(uns, k) {
			t.Errorf("unsupported keys %v lack %s", uns, k)
		}
	}

	untrusted := NewWithOptions(Options{Trust: &TrustFile{Path: filepath.Join(t.TempDir(), "trust.json")}, Notice: &strings.Builder{}})
	r, err = untrusted.Load(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Config.MCP.Servers["git"]; ok {
		t.Errorf("an untrusted checkout's providers.mcp server is configured: %+v", r.Config.MCP.Servers["git"])
	}
	if r.Config.Providers.Anthropic.BaseURL == "http://127.0.0.1:9/rust" {
		t.Error("an untrusted checkout's providers.llm base_url applies")
	}
}

// TestRustArrayStrategies: testdata/rustarrays, conversation.attachments
// merged as the Rust jp's vec_with_strategy merges it: appended across
// extends (a repeat kept once), prepended, replaced, repeated with
// dedup = false, and replaced after a discard_when_merged value.
func TestRustArrayStrategies(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("testdata", "rustarrays"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		persona string
		want    []string
	}{
		{"", []string{"README.md", "notes.md", "docs/guide.md"}},
		{"personas/prepend", []string{"first.md", "README.md", "notes.md", "docs/guide.md"}},
		{"personas/replace", []string{"only.md"}},
		{"personas/repeat", []string{"README.md", "notes.md", "docs/guide.md", "README.md"}},
		{"personas/after_default", []string{"mine.md"}}, // its default.toml replaced with discard_when_merged
	}
	for _, tt := range cases {
		var overrides []string
		if tt.persona != "" {
			overrides = []string{tt.persona}
		}
		r, err := trusting().Load(context.Background(), ports.ConfigSource{WorkspaceRoot: root, LaunchDir: root, Overrides: overrides})
		if err != nil {
			t.Fatalf("%s: %v", tt.persona, err)
		}
		if got := r.Config.Conversation.Attachments; !slices.Equal(got, tt.want) {
			t.Errorf("--cfg %s: attachments = %q, want %q", tt.persona, got, tt.want)
		}
	}
}

// TestArrayMergeStrategies: the merger on a plain string array
// (conversation.attachments): each strategy, dedup and its inheritance,
// and discard_when_merged.
func TestArrayMergeStrategies(t *testing.T) {
	t.Parallel()
	root, _ := schema()
	att := root.at([]string{"conversation", "attachments"})
	cases := []struct {
		name string
		prev any
		next any
		want []any
	}{
		{"plain appends", []any{"a"}, []any{"b"}, []any{"a", "b"}},
		{"plain drops a repeat", []any{"a"}, []any{"a", "b"}, []any{"a", "b"}},
		{"append", []any{"a"}, map[string]any{"value": []any{"b"}, "strategy": "append"}, []any{"a", "b"}},
		{"no strategy appends", []any{"a"}, map[string]any{"value": []any{"b"}}, []any{"a", "b"}},
		{"prepend", []any{"a"}, map[string]any{"value": []any{"b"}, "strategy": "prepend"}, []any{"b", "a"}},
		{"replace", []any{"a"}, map[string]any{"value": []any{"b"}, "strategy": "replace"}, []any{"b"}},
		{"dedup off", []any{"a"}, map[string]any{"value": []any{"a"}, "dedup": false}, []any{"a", "a"}},
		{"nothing below", nil, []any{"b"}, []any{"b"}},
	}
	for _, tt := range cases {
		if got := newMerger(root).value(tt.prev, tt.next, att, "p"); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v + %v = %v, want %v", tt.name, tt.prev, tt.next, got, tt.want)
		}
	}
	// dedup = false is inherited by later layers that do not say.
	mg := newMerger(root)
	v := mg.value([]any{"a"}, map[string]any{"value": []any{"a"}, "dedup": false}, att, "p")
	if got := mg.value(v, []any{"a"}, att, "p"); !reflect.DeepEqual(got, []any{"a", "a", "a"}) {
		t.Errorf("inherited dedup = false: %v", got)
	}
	// discard_when_merged: the next value replaces whatever its strategy.
	mg = newMerger(root)
	v = mg.value(nil, map[string]any{"value": []any{"default"}, "discard_when_merged": true}, att, "p")
	if got := mg.value(v, map[string]any{"value": []any{"mine"}, "strategy": "append"}, att, "p"); !reflect.DeepEqual(got, []any{"mine"}) {
		t.Errorf("after discard_when_merged: %v", got)
	}
	// A plain string array without merge:"strategy" (a command) replaces.
	cmd := root.at([]string{"conversation", "tools", "x", "command"})
	if cmd == nil || cmd.merge != mergeReplace {
		t.Errorf("a tool's command must replace across layers")
	}
}

// TestRustStyleKeys: testdata/ruststyle, every [style] key of the Rust
// jp's StyleConfig written by hand: the ones this jp has an output for
// are read, the others are warned about one by one, and nothing stops.
func TestRustStyleKeys(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("testdata", "ruststyle"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := trusting().Load(context.Background(), ports.ConfigSource{WorkspaceRoot: root, LaunchDir: root})
	if err != nil {
		t.Fatalf("the Rust style keys do not load: %v", err)
	}
	st := r.Config.Style
	if st.Reasoning.Display != (config.ReasoningDisplay{Mode: "truncate", Chars: 200}) || st.ToolCall.Show.Or(true) ||
		!st.Markdown.LightTheme() || st.Code.Color.Or(true) {
		t.Errorf("style read as %+v", st)
	}
	got := unsupportedKeys(r)
	slices.Sort(got)
	want := []string{
		"style.code.copy_link", "style.code.file_link", "style.code.line_numbers",
		"style.inline_code", "style.lock_wait",
		"style.markdown.hr_style", "style.markdown.table_continuation_edge",
		"style.markdown.table_max_column_width", "style.markdown.wrap_width",
		"style.mcp_startup", "style.reasoning.background", "style.reasoning.extend_across_tool_calls",
		"style.reasoning.summary_model", "style.streaming",
		"style.tool_call.preparing", "style.tool_call.progress", "style.typewriter",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warned style keys:\n got %q\nwant %q", got, want)
	}
	for _, tt := range []struct{ v, want string }{
		{`"hidden"`, "hidden"}, {`"timer"`, "timer"}, {`"truncate"`, "truncate"}, {`40`, "truncate"},
	} {
		r, err := trusting().Load(context.Background(), ports.ConfigSource{WorkspaceRoot: root, LaunchDir: root,
			Overrides: []string{"style.reasoning.display=" + tt.v}})
		if err != nil || r.Config.Style.Reasoning.Display.Mode != tt.want {
			t.Errorf("display=%s: %+v, %v", tt.v, r.Config.Style.Reasoning.Display, err)
		}
	}
	_, err = trusting().Load(context.Background(), ports.ConfigSource{WorkspaceRoot: root, LaunchDir: root,
		Overrides: []string{`style.reasoning.display="loud"`}})
	if err == nil || !strings.Contains(err.Error(), "style.reasoning.display") || !strings.Contains(err.Error(), "expected one of full, hidden") {
		t.Errorf("a bad display: %v", err)
	}
}

// TestArrayMergeTableSchema: the JSON Schema takes an array's merge table,
// whose dedup is true or false (a string's is a mode).
func TestArrayMergeTableSchema(t *testing.T) {
	t.Parallel()
	b, err := New().Schema()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties struct {
			Conversation struct {
				Properties struct {
					Attachments struct {
						AnyOf []struct {
							Properties map[string]map[string]any `json:"properties"`
						} `json:"anyOf"`
					} `json:"attachments"`
				} `json:"properties"`
			} `json:"conversation"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	alts := doc.Properties.Conversation.Properties.Attachments.AnyOf
	if len(alts) != 2 || alts[1].Properties["dedup"]["type"] != "boolean" || alts[1].Properties["strategy"] == nil {
		t.Errorf("conversation.attachments schema: %+v", alts)
	}
}
