package builtintools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/jpcli/jp/adapters/tomlconfig"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/ports"
)

// fences returns the fenced blocks of docs/tools.md with the given info
// string, in order.
func fences(t *testing.T, lang string) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestToolsDocExamples runs the examples of docs/tools.md: the prompt's
// diff and the result the model sees are what the tools produce for the
// greet.txt change, and the allow/deny example confines as it says.
func TestToolsDocExamples(t *testing.T) {
	t.Parallel()
	texts := fences(t, "text")
	if len(texts) != 2 {
		t.Fatalf("docs/tools.md has %d text blocks, want the prompt and the result", len(texts))
	}
	dir := tree(t, map[string]string{"greet.txt": "hello world\nbye\n"})
	s := server(t, dir, nil)
	args := json.RawMessage(`{"patterns":[{"old":"hello world","new":"hello jp","paths":["greet.txt"]}]}`)
	p, ok, err := s.Preview(context.Background(), ModifyFile, args)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	prompt := p.Diff + "Run tool fs_modify_file: " + p.Summary + "?\n"
	if !strings.HasPrefix(texts[0], prompt) {
		t.Fatalf("the prompt example differs from what jp shows:\n%s\nwant it to start with\n%s", texts[0], prompt)
	}
	r, err := s.Call(context.Background(), ModifyFile, args)
	if err != nil || r.IsError {
		t.Fatal(r, err)
	}
	if texts[1] != r.Content {
		t.Fatalf("the result example differs:\n%q\nwant\n%q", texts[1], r.Content)
	}

	var found bool
	for _, block := range fences(t, "toml") {
		var doc struct {
			Conversation struct {
				Tools map[string]struct {
					Allow []string `toml:"allow"`
					Deny  []string `toml:"deny"`
				} `toml:"tools"`
			} `toml:"conversation"`
		}
		if err := toml.Unmarshal([]byte(block), &doc); err != nil {
			t.Fatalf("a toml block of docs/tools.md does not parse: %v\n%s", err, block)
		}
		mod, ok := doc.Conversation.Tools[ModifyFile]
		if !ok || len(mod.Allow) == 0 {
			continue
		}
		found = true
		s := server(t, t.TempDir(), map[string]config.Tool{ModifyFile: {Allow: mod.Allow, Deny: mod.Deny}})
		for rel, want := range map[string]bool{"src/a.go": true, "src/x/y.go": true, "docs/a.md": true, "src/gen/z.go": false, "docs/x/a.md": false, "main.go": false} {
			if got := s.permitted(ModifyFile, rel); got != want {
				t.Errorf("allow/deny example: %s permitted = %v, want %v", rel, got, want)
			}
		}
	}
	if !found {
		t.Fatal("docs/tools.md has no allow/deny example")
	}
}

// TestToolsDocSandboxExample: the sandbox example of docs/tools.md loads
// through the real configuration loader into what the Sandbox section
// says: the shell's level, a write grant, the network opened, one more
// denied path.
func TestToolsDocSandboxExample(t *testing.T) {
	var block string
	for _, b := range fences(t, "toml") {
		if strings.Contains(b, "access.fs") {
			block = b
		}
	}
	if block == "" {
		t.Fatal("docs/tools.md has no sandbox example")
	}
	f := filepath.Join(t.TempDir(), "sandbox.toml")
	if err := os.WriteFile(f, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := tomlconfig.New().Load(context.Background(), ports.ConfigSource{Overrides: []string{f}})
	if err != nil {
		t.Fatal(err)
	}
	sh := res.Config.Tool(Shell)
	if sh.Sandbox != config.SandboxLevelWorkspaceWrite || len(sh.Access.FS) != 1 || !sh.Access.FS[0].Writes() || !sh.Access.Network() {
		t.Fatalf("shell = %+v", sh)
	}
	if d := res.Config.Conversation.Tools.Defaults.DenyRead; len(d) != 1 || d[0] != "~/.config/my-secrets" {
		t.Fatalf("deny_read = %v", d)
	}
}
