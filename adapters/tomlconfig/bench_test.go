package tomlconfig

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/ports"
)

// BenchmarkLoad measures one load with every layer present: user and
// workspace files, three .jp.toml files, three JP_CFG_ variables and three
// --cfg flags.
func BenchmarkLoad(b *testing.B) {
	w := newWorkspace(b)
	writeFile(b, filepath.Join(w.user, "config.toml"), `
[assistant.model]
id = "anthropic/claude-sonnet-4-5"
[providers.openai]
base_url = "http://localhost:8080/v1"
[interrupt.streaming]
action = "prompt"
compose_in_editor = true
[mcp.servers.everything]
command = ["npx", "@modelcontextprotocol/server-everything"]
env = { DEBUG = "1" }
[plugins.command.titles]
run = "unattended"
checksum = { algorithm = "sha256", value = "0123456789abcdef" }
options = { model = "demo/echo", max = 3 }
`)
	writeFile(b, filepath.Join(w.root, ".jp", "config.toml"), `
[query]
loop = "if_pending"
[conversation.tools.defaults]
run = "ask"
[conversation.tools.fs_read]
command = ["./scripts/fs_read.sh"]
description = "Read a file of the workspace."
parameters = { type = "object", properties = { path = { type = "string" } }, required = ["path"] }
[interrupt.loop_countdown]
duration_secs = 5
`)
	writeFile(b, filepath.Join(w.root, ".jp.toml"), "interrupt.tool_call.action = \"continue\"\n")
	writeFile(b, filepath.Join(w.root, "a", ".jp.toml"), "conversation.tools.fs_read.run = \"unattended\"\n")
	writeFile(b, filepath.Join(w.launch, ".jp.toml"), "mcp.servers.everything.enable = false\n")
	env := []string{"HOME=/home/u", "PATH=/usr/bin", "JP_CFG_QUERY__LOOP=never",
		"JP_CFG_MCP__MAX_INSTANCES=4", "JP_CFG_INTERRUPT__STREAMING__COMPOSE_IN_EDITOR=never"}
	flags := []string{"query.loop=if_pending", "assistant.request.max_retries=2", `interrupt.tool_call={ action = "stop" }`}
	src := w.source(env, flags)
	l := trusting()
	ctx := context.Background()
	if r, err := l.Load(ctx, src); err != nil || len(r.Sources) != 12 {
		b.Fatalf("Load = %v sources, %v", r.Sources, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Load(ctx, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadRustWorkspace measures one load of testdata/rustws with
// --cfg personas/dev: seven files through extends (a ** glob among them),
// merge tables, and 28 ignored Rust keys.
func BenchmarkLoadRustWorkspace(b *testing.B) {
	root, err := filepath.Abs(filepath.Join("testdata", "rustws"))
	if err != nil {
		b.Fatal(err)
	}
	src := ports.ConfigSource{WorkspaceRoot: root, LaunchDir: root, Overrides: []string{"personas/dev"}}
	l := trusting()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Load(context.Background(), src); err != nil {
			b.Fatal(err)
		}
	}
}
