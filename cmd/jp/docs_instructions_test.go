package main

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestDocsSystemPromptExample keeps the example of docs/configuration.md's
// "The system prompt" section executed: it must be the start of the
// configuration that testdata/script/instructions.txtar runs.
func TestDocsSystemPromptExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "#### The system prompt")
	if !ok {
		t.Fatal("docs/configuration.md has no section \"The system prompt\"")
	}
	_, block, ok := strings.Cut(section, "```toml\n")
	if !ok {
		t.Fatal("the section has no toml example")
	}
	block, _, _ = strings.Cut(block, "```")
	ar, err := txtar.ParseFile("testdata/script/instructions.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "config.toml" {
			if !strings.HasPrefix(string(f.Data), block) {
				t.Fatalf("the docs example is not the start of instructions.txtar's config.toml:\n%s", block)
			}
			return
		}
	}
	t.Fatal("instructions.txtar has no config.toml")
}
