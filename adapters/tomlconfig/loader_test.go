package tomlconfig

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/ports"
)

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// workspace lays out a user config dir and a checkout with a launch
// directory two levels below the root, all empty.
type workspace struct {
	user, root, launch string
}

func newWorkspace(t testing.TB) workspace {
	dir := t.TempDir()
	w := workspace{
		user:   filepath.Join(dir, "config", "jp"),
		root:   filepath.Join(dir, "repo"),
		launch: filepath.Join(dir, "repo", "a", "b"),
	}
	for _, d := range []string{w.user, filepath.Join(w.root, ".jp"), w.launch} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w workspace) source(env, overrides []string) ports.ConfigSource {
	return ports.ConfigSource{UserConfigDir: w.user, WorkspaceRoot: w.root, LaunchDir: w.launch, Env: env, Overrides: overrides}
}

func load(t testing.TB, src ports.ConfigSource) config.Resolved {
	t.Helper()
	r, err := trusting().Load(context.Background(), src)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return r
}

func TestLoadDefaultsOnly(t *testing.T) {
	r := load(t, ports.ConfigSource{})
	if !reflect.DeepEqual(r.Config, config.Default()) {
		t.Errorf("Config = %+v, want the defaults", r.Config)
	}
	if !reflect.DeepEqual(r.Sources, []string{"built-in defaults"}) {
		t.Errorf("Sources = %v", r.Sources)
	}
	loop, err := config.Lookup(r.Tree, "query.loop")
	if err != nil || loop != "if_pending" {
		t.Errorf("tree query.loop = %v, %v", loop, err)
	}
	servers, err := config.Lookup(r.Tree, "mcp.servers")
	if err != nil || !reflect.DeepEqual(servers, map[string]any{}) {
		t.Errorf("tree mcp.servers = %v, %v", servers, err)
	}
}

func TestLoadPrecedence(t *testing.T) {
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.user, "config.toml"), `
[assistant.request]
max_retries = 1
[interrupt]
escalation_cooldown_secs = 3
[interrupt.loop_countdown]
duration_secs = 1
[mcp.servers.fs]
command = ["a", "b"]
env = { A = "1" }
`)
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), `
interrupt.escalation_cooldown_secs = 4
interrupt.loop_countdown.duration_secs = 2
mcp.idle_shutdown_secs = 10
[mcp.servers.fs]
enable = false
env = { B = "2" }
`)
	writeFile(t, filepath.Join(w.root, ".jp.toml"), "interrupt.loop_countdown.duration_secs = 3\n")
	writeFile(t, filepath.Join(w.root, "a", ".jp.toml"), "interrupt.loop_countdown.duration_secs = 4\nmcp.servers.fs.command = [\"c\"]\n")
	writeFile(t, filepath.Join(w.launch, ".jp.toml"), "interrupt.loop_countdown.duration_secs = 5\nmcp.idle_shutdown_secs = 11\n")

	env := []string{"HOME=/x", "JP_CFG_MCP__IDLE_SHUTDOWN_SECS=12", "JP_CFG_MCP__MAX_INSTANCES=3"}
	flags := []string{"mcp.max_instances=4", "query.loop=never", "query.loop=if_pending"}
	r := load(t, w.source(env, flags))
	c := r.Config

	checks := []struct {
		key       string
		got, want any
	}{
		{"user only", c.Assistant.Request.MaxRetries, 1},
		{"workspace over user", c.Interrupt.EscalationCooldownSecs, 4},
		{"innermost .jp.toml wins", c.Interrupt.LoopCountdown.DurationSecs, 5},
		{"env over files", c.MCP.IdleShutdownSecs, 12},
		{"flag over env", c.MCP.MaxInstances, 4},
		{"later flag wins", c.Query.Loop, config.LoopPolicyIfPending},
		{"arrays replace", c.MCP.Servers["fs"].Command, []string{"c"}},
		{"tables merge", c.MCP.Servers["fs"].Env, map[string]string{"A": "1", "B": "2"}},
		{"entry keeps others' keys", c.MCP.Servers["fs"].Enable, false},
		{"untouched default", c.Plugins.RespondTimeoutSecs, 300},
	}
	for _, ck := range checks {
		if !reflect.DeepEqual(ck.got, ck.want) {
			t.Errorf("%s: got %v, want %v", ck.key, ck.got, ck.want)
		}
	}
	wantSources := []string{
		"built-in defaults",
		filepath.Join(w.user, "config.toml"),
		filepath.Join(w.root, ".jp", "config.toml"),
		filepath.Join(w.root, ".jp.toml"),
		filepath.Join(w.root, "a", ".jp.toml"),
		filepath.Join(w.launch, ".jp.toml"),
		"environment variable JP_CFG_MCP__IDLE_SHUTDOWN_SECS",
		"environment variable JP_CFG_MCP__MAX_INSTANCES",
		`--cfg flag "mcp.max_instances=4"`,
		`--cfg flag "query.loop=never"`,
		`--cfg flag "query.loop=if_pending"`,
	}
	if !reflect.DeepEqual(r.Sources, wantSources) {
		t.Errorf("Sources =\n%q\nwant\n%q", r.Sources, wantSources)
	}
	if v, _ := config.Lookup(r.Tree, "interrupt.loop_countdown.duration_secs"); v != int64(5) {
		t.Errorf("tree duration_secs = %#v", v)
	}
	if v, _ := config.Lookup(r.Tree, "mcp.servers.fs"); !reflect.DeepEqual(v, map[string]any{
		"command": []any{"c"}, "enable": false, "env": map[string]any{"A": "1", "B": "2"},
		"url": "", "bearer_token_env": "", "oauth": map[string]any{"client_id": "", "client_secret": ""},
	}) {
		t.Errorf("tree mcp.servers.fs = %#v", v)
	}
}

func TestLoadJpTomlChain(t *testing.T) {
	w := newWorkspace(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(w.root, ".jp.toml"), "assistant.request.max_retries = 1\n")
	writeFile(t, filepath.Join(w.root, "a", ".jp.toml"), "assistant.request.max_retries = 2\n")
	writeFile(t, filepath.Join(outside, ".jp.toml"), "assistant.request.max_retries = 9\n")
	tests := []struct {
		name       string
		root, dir  string
		wantRetrys int
	}{
		{"launch in subdirectory", w.root, filepath.Join(w.root, "a"), 2},
		{"launch deeper than the last file", w.root, w.launch, 2},
		{"launch at root", w.root, w.root, 1},
		{"no launch dir", w.root, "", 1},
		{"launch outside the root", w.root, outside, 1},
		{"outside a workspace", "", outside, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := load(t, ports.ConfigSource{WorkspaceRoot: tt.root, LaunchDir: tt.dir})
			if got := r.Config.Assistant.Request.MaxRetries; got != tt.wantRetrys {
				t.Errorf("max_retries = %d, want %d", got, tt.wantRetrys)
			}
		})
	}
}

func TestLoadEnv(t *testing.T) {
	env := []string{
		"PATH=/bin",
		"jp_cfg_query__loop=never", // the prefix is case-sensitive: ignored
		"JP_CFG_INTERRUPT__LOOP_COUNTDOWN__DURATION_SECS=0",
		"JP_CFG_QUERY__COMPOSE_IN_EDITOR=always",
		"JP_CFG_INTERRUPT__TOOL_CALL__COMPOSE_IN_EDITOR=true",
		`JP_CFG_MCP__SERVERS__FS__COMMAND=["npx", "server"]`,
		"JP_CFG_ASSISTANT__MODEL__ID=123",
		"JP_CFG_PROVIDERS__DEMO__SCRIPT=a=b.json",
		// A table variable applies before the variables of its keys.
		"JP_CFG_INTERRUPT__STREAMING__ACTION=abort",
		`JP_CFG_INTERRUPT__STREAMING={ action = "stop", compose_in_editor = "never" }`,
	}
	c := load(t, ports.ConfigSource{Env: env}).Config
	checks := []struct {
		name      string
		got, want any
	}{
		{"ignored lowercase prefix", c.Query.Loop, config.LoopPolicyIfPending},
		{"integer", c.Interrupt.LoopCountdown.DurationSecs, 0},
		{"string enum", c.Query.ComposeInEditor, config.ComposeInEditorAlways},
		{"bool enum", c.Interrupt.ToolCall.ComposeInEditor, config.ComposeInEditorTrue},
		{"array", c.MCP.Servers["fs"].Command, []string{"npx", "server"}},
		{"new entry gets defaults", c.MCP.Servers["fs"].Enable, true},
		{"string key keeps the raw text", c.Assistant.Model.ID, "123"},
		{"value with =", c.Providers.Demo.Script, "a=b.json"},
		{"key variable over table variable", c.Interrupt.Streaming.Action, config.StreamingActionAbort},
		{"table variable", c.Interrupt.Streaming.ComposeInEditor, config.ComposeInEditorNever},
	}
	for _, ck := range checks {
		if !reflect.DeepEqual(ck.got, ck.want) {
			t.Errorf("%s: got %v, want %v", ck.name, ck.got, ck.want)
		}
	}
}

func TestLoadFlags(t *testing.T) {
	flags := []string{
		"query.loop = never",
		`assistant.model.id="anthropic/claude"`,
		"providers.openai.base_url=http://localhost:8080/v1",
		"interrupt.tool_call={action='restart'}",
		"interrupt.tool_call.compose_in_editor=never",
		`conversation.tools.fs_read.parameters={ type = "object", properties = { path = { type = "string" } } }`,
		"conversation.tools.fs_read.run=unattended",
		`plugins.command.titles.checksum.value=abc123`,
		`plugins.command.titles.options={ model = "x", n = 3 }`,
		`mcp.servers."my.server".command=["srv"]`,
		"assistant.model.id=",
	}
	c := load(t, ports.ConfigSource{Overrides: flags}).Config
	checks := []struct {
		name      string
		got, want any
	}{
		{"spaces around =", c.Query.Loop, config.LoopPolicyNever},
		{"empty value is an empty string", c.Assistant.Model.ID, ""},
		{"raw URL", c.Providers.OpenAI.BaseURL, "http://localhost:8080/v1"},
		{"table value", c.Interrupt.ToolCall.Action, config.ToolCallActionRestart},
		{"key after table", c.Interrupt.ToolCall.ComposeInEditor, config.ComposeInEditorNever},
		{"any table", c.Conversation.Tools.Named["fs_read"].Parameters, map[string]any{
			"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}},
		{"tool inherits", c.Tool("fs_read").CancellationResponse, config.DefaultCancellationResponse},
		{"tool run", c.Tool("fs_read").Run, config.RunPolicyUnattended},
		{"plugin defaults", c.Plugin("titles").Run, config.RunPolicyAsk},
		{"checksum defaults", *c.Plugin("titles").Checksum, config.Checksum{Algorithm: config.ChecksumAlgorithmSHA256, Value: "abc123"}},
		{"options", c.Plugin("titles").Options, map[string]any{"model": "x", "n": int64(3)}},
		{"quoted key", c.MCP.Servers["my.server"].Command, []string{"srv"}},
	}
	for _, ck := range checks {
		if !reflect.DeepEqual(ck.got, ck.want) {
			t.Errorf("%s: got %#v, want %#v", ck.name, ck.got, ck.want)
		}
	}
}

func TestLoadMissingFilesAndCancel(t *testing.T) {
	dir := t.TempDir()
	r := load(t, ports.ConfigSource{UserConfigDir: filepath.Join(dir, "nope"), WorkspaceRoot: filepath.Join(dir, "none"), LaunchDir: filepath.Join(dir, "none", "x")})
	if len(r.Sources) != 1 {
		t.Errorf("Sources = %v, want the defaults only", r.Sources)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := trusting().Load(ctx, ports.ConfigSource{UserConfigDir: dir}); !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a cancelled context = %v", err)
	}
}

func TestLoadConcurrently(t *testing.T) {
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), "[mcp.servers.fs]\ncommand = [\"x\"]\n")
	l := trusting()
	src := w.source([]string{"JP_CFG_QUERY__LOOP=never"}, []string{"mcp.max_instances=2"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			r, err := l.Load(context.Background(), src)
			if err != nil || r.Config.Query.Loop != config.LoopPolicyNever || r.Config.MCP.MaxInstances != 2 {
				t.Errorf("Load = %v, %v", r.Config.Query.Loop, err)
			}
			r.Tree["query"].(map[string]any)["loop"] = "mutated"
			r.Config.MCP.Servers["fs"] = config.MCPServer{}
		})
	}
	wg.Wait()
	if r := load(t, src); r.Tree["query"].(map[string]any)["loop"] != "never" || len(r.Config.MCP.Servers["fs"].Command) != 1 {
		t.Error("a caller's mutation leaked into later loads")
	}
}

func TestDecodeEncodeRoundTrip(t *testing.T) {
	root, def := schema()
	c := config.Default()
	c.MCP.Servers["s"] = config.MCPServer{Command: []string{"x"}, Env: map[string]string{"K": "V"}}
	c.Plugins.Command["p"] = config.PluginCommand{Run: config.RunPolicyDeny, Checksum: &config.Checksum{Algorithm: config.ChecksumAlgorithmSHA256, Value: "ab"}, Options: map[string]any{"k": "v"}}
	off := false
	c.Conversation.Tools.Named["t"] = config.Tool{Command: []string{"run"}, Parameters: map[string]any{"type": "object"}, Enable: &off}
	c.Assistant.SystemPromptSections = []config.PromptSection{{Content: "a", Tag: "t", Position: -1}}
	c.Assistant.Model.Aliases = map[string]string{"fast": "demo/echo"}
	c.ConfigLoadPaths = []string{".jp/config/personas"}
	c.Query.ComposeInEditor = config.ComposeInEditorAlways
	tree := encode(reflect.ValueOf(c), root).(map[string]any)
	if _, err := validate(tree, root, "round trip"); err != nil {
		t.Fatalf("encoded tree does not validate: %v", err)
	}
	var back config.Config
	if err := decode(tree, root, reflect.ValueOf(&back).Elem()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, c)
	}
	if _, err := validate(def, root, "defaults"); err != nil {
		t.Errorf("defaults tree does not validate: %v", err)
	}
}

// trustAll trusts every checkout: for the tests of what a configuration
// means once trusted.
type trustAll struct{}

func (trustAll) Trusted(string, string) (bool, error) { return true, nil }

// trusting is a Loader that trusts every checkout.
func trusting() *Loader { return NewWithOptions(Options{Trust: trustAll{}}) }
