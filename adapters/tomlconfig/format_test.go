package tomlconfig

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestFormatTOMLLaysOutAndKeepsComments(t *testing.T) {
	in := "\n\n# top comment\n  assistant.model.id=\"anthropic/x\"   # the model\nsummary   =  'a # not a comment'\n[ conversation ]\n# the attachments\n  attachments = [\n\"a.go\",\n      \"b.go\",   # second\n]\n\n\n\nprompt = \"\"\"\n  kept   as is  \n\"\"\"\n[[ plugins.x ]]\nk=1"
	want := "# top comment\nassistant.model.id = \"anthropic/x\" # the model\nsummary = 'a # not a comment'\n\n[conversation]\n# the attachments\nattachments = [\n    \"a.go\",\n    \"b.go\", # second\n]\n\nprompt = \"\"\"\n  kept   as is  \n\"\"\"\n\n[[plugins.x]]\nk = 1\n"
	got, err := formatTOML("in.toml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	again, err := formatTOML("in.toml", got)
	if err != nil || string(again) != want {
		t.Fatalf("formatting twice changed it: %q, %v", again, err)
	}
}

func TestFormatTOMLRefusesSyntaxError(t *testing.T) {
	if _, err := formatTOML("bad.toml", []byte("a = [")); err == nil {
		t.Fatal("no error for a broken file")
	}
}

func TestEditorFormatCheckAndWrite(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, []byte("a=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	changed, err := NewEditor().Format(ctx, file, true)
	if err != nil || !changed {
		t.Fatalf("check: changed=%v err=%v", changed, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "a=1\n" {
		t.Fatalf("check wrote the file: %q", b)
	}
	changed, err = NewEditor().Format(ctx, file, false)
	if err != nil || !changed {
		t.Fatalf("format: changed=%v err=%v", changed, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "a = 1\n" {
		t.Fatalf("formatted: %q", b)
	}
	if _, err := NewEditor().Format(ctx, filepath.Join(dir, "none.toml"), false); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}
