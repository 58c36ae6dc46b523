package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// docsWithExamples are the user docs whose examples are executed. An
// example is a fenced block right after a marker line
//
//	<!-- example: cmd/jp/testdata/script/NAME.txtar FILE -->
//
// and must be byte for byte FILE of that testscript archive, which
// TestScripts runs (FILE is a plugin, a headless script, a manifest or a
// configuration the scenario uses, and the scenario checks what it does).
// A block marked
//
//	<!-- example: PATH -->
//
// must be byte for byte the repository file PATH, which its own tests
// run, and a block marked
//
//	<!-- example-part: PATH -->
//
// must appear byte for byte inside PATH (a function of a program the
// tests build and run). Markers are HTML comments: a reader of the
// rendered page does not see them. Every other fenced block of these docs
// must be a JSON block of protocol messages, which TestPluginDocMessages
// reads as the protocol does, or a jsonl block of jp q --format json
// records, which TestDocsScriptingExample validates against the schema.
var docsWithExamples = []string{"docs/headless.md", "docs/plugins.md", "docs/mcp.md", "docs/completion.md", "docs/scripting.md", "docs/session.md"}

var (
	exampleMarker = regexp.MustCompile(`^<!-- example: (\S+)(?: (\S+))? -->$`)
	partMarker    = regexp.MustCompile(`^<!-- example-part: (\S+) -->$`)
)

// TestDocExamplesAreExecuted checks every marked example against the file
// that runs it, and that each doc marks the examples it must: a doc
// without any marked example fails, as does a marker that points at
// nothing.
func TestDocExamplesAreExecuted(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	for _, doc := range docsWithExamples {
		t.Run(filepath.Base(doc), func(t *testing.T) {
			t.Parallel()
			examples := docExamples(t, filepath.Join(root, doc))
			if len(examples) == 0 {
				t.Fatalf("%s marks no example as executed", doc)
			}
			for _, b := range docBlocks(t, filepath.Join(root, doc)) {
				if !b.marked && b.lang != "json" && (b.lang != "jsonl" || doc != "docs/scripting.md") {
					t.Errorf("%s:%d: a %q block that no test executes: mark it with the file that runs it", doc, b.line, b.lang)
				}
			}
			for _, ex := range examples {
				want := exampleSource(t, root, ex)
				if ex.part {
					if !strings.Contains(want, ex.body) {
						t.Errorf("%s:%d: the example is not part of %s, which the tests run:\n%s", doc, ex.line, ex.path, ex.body)
					}
					continue
				}
				if ex.body != want {
					t.Errorf("%s:%d: the example differs from %s %s, which the tests run:\n--- doc ---\n%s--- file ---\n%s",
						doc, ex.line, ex.path, ex.file, ex.body, want)
				}
			}
		})
	}
}

type docExample struct {
	line       int
	path, file string
	part       bool // the block is a part of path
	body       string
}

// docBlock is a fenced block of a doc: its language, whether a marker
// names what executes it, and its text.
type docBlock struct {
	line   int
	lang   string
	marked bool
	body   string
}

// docBlocks returns every fenced block of the markdown file.
func docBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		blk := docBlock{line: i + 1, lang: strings.TrimPrefix(lines[i], "```"),
			marked: i > 0 && (exampleMarker.MatchString(lines[i-1]) || partMarker.MatchString(lines[i-1]))}
		var body strings.Builder
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body.WriteString(lines[i] + "\n")
		}
		blk.body = body.String()
		out = append(out, blk)
	}
	return out
}

// docExamples returns the marked fenced blocks of the markdown file.
func docExamples(t *testing.T, path string) []docExample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []docExample
	sc := bufio.NewScanner(f)
	n := 0
	var pending *docExample
	for sc.Scan() {
		n++
		line := sc.Text()
		if m := exampleMarker.FindStringSubmatch(line); m != nil {
			pending = &docExample{line: n, path: m[1], file: m[2]}
			continue
		}
		if m := partMarker.FindStringSubmatch(line); m != nil {
			pending = &docExample{line: n, path: m[1], part: true}
			continue
		}
		if pending == nil {
			continue
		}
		if !strings.HasPrefix(line, "```") {
			t.Fatalf("%s:%d: an example marker must be followed by a fenced block", path, pending.line)
		}
		var body strings.Builder
		closed := false
		for sc.Scan() {
			n++
			if sc.Text() == "```" {
				closed = true
				break
			}
			body.WriteString(sc.Text() + "\n")
		}
		if !closed {
			t.Fatalf("%s:%d: the example's fenced block is not closed", path, pending.line)
		}
		pending.body = body.String()
		out = append(out, *pending)
		pending = nil
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// exampleSource is the text an example must equal.
func exampleSource(t *testing.T, root string, ex docExample) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ex.path))
	if err != nil {
		t.Fatalf("example marker at line %d: %v", ex.line, err)
	}
	if ex.file == "" {
		return string(b)
	}
	if !strings.HasSuffix(ex.path, ".txtar") || !strings.HasPrefix(ex.path, "cmd/jp/testdata/script/") {
		t.Fatalf("example marker at line %d: %s is not a scenario of cmd/jp/testdata/script", ex.line, ex.path)
	}
	for _, f := range txtar.Parse(b).Files {
		if f.Name == ex.file {
			return string(f.Data)
		}
	}
	t.Fatalf("example marker at line %d: %s has no file %s", ex.line, ex.path, ex.file)
	return ""
}
