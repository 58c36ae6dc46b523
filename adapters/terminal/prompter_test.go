package terminal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/ports"
)

func TestPrompterNotInteractive(t *testing.T) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	for _, p := range []*Prompter{
		NewPrompter(PrompterOptions{}),
		NewPrompter(PrompterOptions{In: devnull, Out: devnull}),
		NewPrompter(PrompterOptions{Interactive: true}),
	} {
		if p.Interactive() {
			t.Fatal("Interactive() = true")
		}
		if _, err := p.Ask(context.Background(), ports.Question{Kind: ports.QuestionConfirm}); !errors.Is(err, ports.ErrUnavailable) {
			t.Errorf("Ask() = %v, want ErrUnavailable", err)
		}
		if _, err := p.Compose(context.Background(), ports.ComposeRequest{InEditor: true}); !errors.Is(err, ports.ErrUnavailable) {
			t.Errorf("Compose() = %v, want ErrUnavailable", err)
		}
	}
}

// editorPrompter is interactive on /dev/null, which is enough for an
// external editor that does not read the terminal.
func editorPrompter(t *testing.T, editor string) *Prompter {
	t.Helper()
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { devnull.Close() })
	return NewPrompter(PrompterOptions{In: devnull, Out: devnull, Interactive: true, Editor: editor, TempDir: t.TempDir()})
}

func writeScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ed.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestComposeInEditor(t *testing.T) {
	doc := draft.New("old question", "a = 1", "> excerpt").Render()
	// The editor replaces the first line (the query text) and records its
	// arguments.
	argsFile := filepath.Join(t.TempDir(), "args")
	ed := writeScript(t, `echo "$@" > `+argsFile+`
for f; do :; done
{ echo "new question"; tail -n +2 "$f"; } > "$f.new" && mv "$f.new" "$f"
`)
	p := editorPrompter(t, "sh "+ed+" --flag")
	got, err := p.Compose(context.Background(), ports.ComposeRequest{Purpose: "query", InEditor: true, Document: doc, Initial: "old question"})
	if err != nil {
		t.Fatal(err)
	}
	d := draft.Parse(got)
	if d.Query() != "new question" || d.Meta() != draft.Parse(doc).Meta() {
		t.Errorf("Compose() = %q", got)
	}
	args, _ := os.ReadFile(argsFile)
	if !strings.HasPrefix(string(args), "--flag ") || !strings.Contains(string(args), "jp-query-") {
		t.Errorf("editor args = %q", args)
	}
	// The temp file is removed.
	if m, _ := filepath.Glob(filepath.Join(p.opts.TempDir, "jp-*")); len(m) != 0 {
		t.Errorf("temp files left: %v", m)
	}
}

func TestComposeInEditorInitialOnly(t *testing.T) {
	p := editorPrompter(t, "sh "+writeScript(t, `printf '%s!' "$(cat "$1")" > "$1"`))
	got, err := p.Compose(context.Background(), ports.ComposeRequest{Purpose: "reply", InEditor: true, Initial: "seed"})
	if err != nil || got != "seed!" {
		t.Fatalf("Compose() = %q, %v", got, err)
	}
}

func TestComposeEditorFailures(t *testing.T) {
	tests := []struct {
		name   string
		editor string
		want   error
		msg    string
	}{
		{"non-zero exit cancels", "sh " + writeScript(t, "exit 3"), ports.ErrCancelled, "exited with status 3"},
		{"missing editor", "/nonexistent/editor", ports.ErrUnavailable, `run the editor "/nonexistent/editor"`},
		{"no editor", "", ports.ErrUnavailable, "no editor found: set editor.cmd, $JP_EDITOR, $VISUAL or $EDITOR (e.g. export EDITOR=vi), or install editor, nano or vi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := editorPrompter(t, tt.editor)
			_, err := p.Compose(context.Background(), ports.ComposeRequest{InEditor: true, Initial: "x"})
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Compose() = %v, want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

// TestComposeEditorFromConfig: the request's editor (editor.cmd) replaces
// the one found at start, and a failure names where it came from.
func TestComposeEditorFromConfig(t *testing.T) {
	p := editorPrompter(t, "/nonexistent/found-at-start")
	got, err := p.Compose(context.Background(), ports.ComposeRequest{Purpose: "query", InEditor: true, Initial: "seed",
		Editor: "sh " + writeScript(t, `printf '%s from config' "$(cat "$1")" > "$1"`)})
	if err != nil || got != "seed from config" {
		t.Fatalf("Compose() = %q, %v", got, err)
	}
	_, err = p.Compose(context.Background(), ports.ComposeRequest{InEditor: true, Initial: "x", Editor: "/nonexistent/configured"})
	if !errors.Is(err, ports.ErrUnavailable) || !strings.Contains(err.Error(), `run the editor "/nonexistent/configured" (from editor.cmd)`) {
		t.Errorf("Compose() with a missing configured editor = %v", err)
	}
}

func TestFileSafe(t *testing.T) {
	for in, want := range map[string]string{"queue_reply": "queue_reply", "../x y": "xy", "": "message"} {
		if got := fileSafe(in); got != want {
			t.Errorf("fileSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// The diff shown before a write tool's question escapes bidirectional
// controls and zero-width characters in file names and lines, as it
// escapes control bytes.
func TestShowDiffEscapesInvisibleCharacters(t *testing.T) {
	got := colourDiff("--- /dev/null\n+++ b/evil\u202egnp.sh\n@@ -0,0 +1 @@\n+if admin\u2066 {\u2069 \u200b\n")
	for _, want := range []string{"+++ b/evil<U+202E>gnp.sh", "+if admin<U+2066> {<U+2069> <U+200B>"} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%q", want, got)
		}
	}
	if strings.ContainsAny(got, "\u202e\u2066\u2069\u200b") {
		t.Errorf("diff holds a raw format character: %q", got)
	}
}
