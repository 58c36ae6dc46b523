package tomlconfig

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/ports"
)

// FuzzLoad loads a configuration from a file, a JP_CFG_* variable and a
// --cfg flag, all three from the fuzzer: no panic, and what loads
// renders.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("[assistant.model]\nid = \"demo/echo\"\n"), "never", "query.loop=never")
	f.Add([]byte("[conversation.tools.x]\ncommand = [\"sh\"]\nparameters = { type = \"object\" }\n"), `{ action = "stop" }`, "mcp.servers.fs.command=[\"npx\", \"srv\"]")
	f.Add([]byte("query.loop = 3\n[[x]]\n"), "", "=")
	f.Add([]byte("\x00\xff[["), "\"", "a.b.c")
	f.Fuzz(func(t *testing.T, file []byte, env, flag string) {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, ".jp"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".jp", "config.toml"), file, 0o644); err != nil {
			t.Fatal(err)
		}
		l := trusting()
		res, err := l.Load(context.Background(), ports.ConfigSource{
			WorkspaceRoot: root, LaunchDir: root,
			Env:       []string{"JP_CFG_INTERRUPT__STREAMING=" + env},
			Overrides: []string{flag},
		})
		if err != nil {
			return
		}
		if _, err := l.Render(res.Config, "toml"); err != nil {
			t.Fatalf("a loaded configuration does not render: %v", err)
		}
	})
}
