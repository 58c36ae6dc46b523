package tomlconfig

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docBlock is a fenced block of docs/configuration.md, with the file it is
// written to when an <!-- file: PATH --> comment precedes it.
type docBlock struct {
	lang, file, text string
}

func docBlocks(t *testing.T) []docBlock { t.Helper(); return docBlocksOf(t, "configuration.md") }

// docBlocksOf returns the fenced blocks of docs/name.
func docBlocksOf(t *testing.T, name string) []docBlock {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	fileRe := regexp.MustCompile(`^<!-- file: (\S+) -->$`)
	var blocks []docBlock
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && lines[i] != "```"; i++ {
		}
		blk := docBlock{lang: lang, text: strings.Join(lines[start:i], "\n") + "\n"}
		if start >= 2 {
			if m := fileRe.FindStringSubmatch(lines[start-2]); m != nil {
				blk.file = m[1]
			}
		}
		blocks = append(blocks, blk)
	}
	return blocks
}

// TestConfigurationDocExamples loads every TOML example of
// docs/configuration.md: each on its own as a workspace's .jp/config.toml,
// and the ones marked with a file path together, as the persona example
// describes them.
func TestConfigurationDocExamples(t *testing.T) {
	t.Parallel()
	persona := newWorkspace(t)
	n := 0
	for _, blk := range docBlocks(t) {
		if blk.lang != "toml" {
			continue
		}
		n++
		if blk.file != "" {
			writeFile(t, filepath.Join(persona.root, filepath.FromSlash(blk.file)), blk.text)
			continue
		}
		w := newWorkspace(t)
		writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), blk.text)
		if _, err := trusting().Load(context.Background(), w.source(nil, nil)); err != nil {
			t.Errorf("example does not load: %v\n%s", err, blk.text)
		}
	}
	if n < 8 {
		t.Fatalf("found %d TOML examples; the extraction is broken", n)
	}
	r, err := trusting().Load(context.Background(), persona.source(nil, []string{"personas/dev"}))
	if err != nil {
		t.Fatalf("--cfg personas/dev on the documented files: %v", err)
	}
	c := r.Config
	if m, _ := c.ResolveModel(c.Assistant.Model.ID); m != "demo/echo" {
		t.Errorf("persona model = %q", m)
	}
	if got := c.SystemPrompt(); got != "You work on jp, a Go CLI.\n\n<checks>\nRun make check before you say it works.\n</checks>" {
		t.Errorf("persona system prompt = %q", got)
	}
	if !slices.Contains(c.LocalTools(), "git_log") {
		t.Errorf("the skill applied after the persona is missing: %q", c.LocalTools())
	}
	// The documented error line for a mistyped name, word for word.
	_, err = trusting().Load(context.Background(), persona.source(nil, []string{"personas/dve"}))
	want := `invalid --cfg "personas/dve": expected key.path=value, a TOML file or a configuration name (looked in .jp/config); did you mean personas/dev?`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
	doc := ""
	for _, blk := range docBlocks(t) {
		doc += blk.text
	}
	if !strings.Contains(doc, "jp: "+want) {
		t.Errorf("docs/configuration.md does not show the error line %q", want)
	}
}

// TestProvidersDocExamples loads every TOML example of docs/providers.md
// as a workspace's .jp/config.toml, and checks the named provider and the
// alias of its example.
func TestProvidersDocExamples(t *testing.T) {
	t.Parallel()
	n := 0
	for _, blk := range docBlocksOf(t, "providers.md") {
		if blk.lang != "toml" {
			continue
		}
		n++
		w := newWorkspace(t)
		writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), blk.text)
		r, err := trusting().Load(context.Background(), w.source(nil, nil))
		if err != nil {
			t.Errorf("example does not load: %v\n%s", err, blk.text)
			continue
		}
		if strings.Contains(blk.text, "[providers.vllm]") {
			if r.Config.Providers.Named["vllm"].Kind != "openai-compatible" {
				t.Errorf("providers.vllm = %+v", r.Config.Providers.Named["vllm"])
			}
			if m, _ := r.Config.ResolveModel("local"); m != "vllm/Qwen/Qwen3-8B" {
				t.Errorf("alias local = %q", m)
			}
		}
	}
	if n != 3 {
		t.Fatalf("found %d TOML examples in docs/providers.md, want 3", n)
	}
}
