package tomlconfig

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/config"
)

func TestEditorSetString(t *testing.T) {
	t.Parallel()
	table := []string{"conversation", "tools", "fs_modify_file"}
	for _, tc := range []struct {
		name, before, want string
	}{
		{"new file", "", "[conversation.tools.fs_modify_file]\nrun = \"unattended\"\n"},
		{"append a table, comments kept", "# mine\n[assistant.model]\nid = \"demo/echo\"", "# mine\n[assistant.model]\nid = \"demo/echo\"\n\n[conversation.tools.fs_modify_file]\nrun = \"unattended\"\n"},
		{"add the key to the table", "[conversation.tools.fs_modify_file] # edits\nallow = [\"src/**\"]\n\n[x]\n", "[conversation.tools.fs_modify_file] # edits\nrun = \"unattended\"\nallow = [\"src/**\"]\n\n[x]\n"},
		{"replace the key", "[conversation.tools.fs_modify_file]\nrun = \"ask\" # was\nallow = []\n", "[conversation.tools.fs_modify_file]\nrun = \"unattended\"\nallow = []\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), ".jp", "config.toml")
			if tc.before != "" {
				must(t, os.MkdirAll(filepath.Dir(file), 0o755))
				must(t, os.WriteFile(file, []byte(tc.before), 0o644))
			}
			must(t, NewEditor().SetString(context.Background(), file, table, "run", "unattended"))
			b, _ := os.ReadFile(file)
			if string(b) != tc.want {
				t.Fatalf("file =\n%s\nwant\n%s", b, tc.want)
			}
		})
	}
}

func TestEditorRefusesWhatItCannotEdit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"broken.toml": "[conversation\n",
		"inline.toml": "conversation.tools.fs_modify_file = { run = \"ask\" }\n",
	} {
		file := filepath.Join(dir, name)
		must(t, os.WriteFile(file, []byte(text), 0o644))
		err := NewEditor().SetString(context.Background(), file, []string{"conversation", "tools", "fs_modify_file"}, "run", "unattended")
		if err == nil {
			t.Fatalf("%s: edited", name)
		}
		if name == "broken.toml" && !errors.Is(err, config.ErrSyntax) {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "inline.toml" && !strings.Contains(err.Error(), "by hand") {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := os.ReadFile(file)
		if string(b) != text {
			t.Fatalf("%s changed: %q", name, b)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// An edit removes the temp files a killed edit left beside the file (old
// ones only: a fresh one may be another writer's in flight), and nothing
// else.
func TestEditorSweepsLeftoverTemps(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	must(t, os.WriteFile(file, []byte("[a]\n"), 0o644))
	old := filepath.Join(dir, ".config.toml.tmp-0123456789ab")
	fresh := filepath.Join(dir, ".config.toml.tmp-ba9876543210")
	mine := filepath.Join(dir, ".config.toml.tmp-notes")
	for _, p := range []string{old, fresh, mine} {
		must(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	then := time.Now().Add(-2 * time.Minute)
	must(t, os.Chtimes(old, then, then))
	must(t, os.Chtimes(mine, then, then))
	must(t, NewEditor().SetString(context.Background(), file, []string{"a"}, "k", "v"))
	if _, err := os.Lstat(old); !os.IsNotExist(err) {
		t.Errorf("old temp file still there: %v", err)
	}
	for _, p := range []string{fresh, mine} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
