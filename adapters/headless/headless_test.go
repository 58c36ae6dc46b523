package headless

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

var permissionOpts = []ports.Option{
	{Key: "y", Label: "run", Value: "y"},
	{Key: "Y", Label: "run, remember for this run", Value: "Y"},
	{Key: "n", Label: "skip", Value: "n"},
	{Key: "N", Label: "skip, remember for this run", Value: "N"},
}

func permission(tool string) ports.Question {
	return ports.Question{Kind: ports.QuestionSelect, Message: "Run tool " + tool + "?", Options: permissionOpts, Topic: "tool_permission:" + tool}
}

func mustParse(t *testing.T, text string) *Script {
	t.Helper()
	s, err := Parse("ci.jph", text)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func TestAskSteps(t *testing.T) {
	branch := ports.Question{Kind: ports.QuestionSelect, Message: "Which branch?", Topic: "plugin:git",
		Options: []ports.Option{{Value: "main"}, {Value: "develop"}, {Key: "r", Label: "Release", Value: "release"}}}
	tests := []struct {
		name   string
		script string
		q      ports.Question
		want   ports.Answer
		err    error
	}{
		{"permission y", "permission bash y", permission("bash"), ports.Answer{Text: "y"}, nil},
		{"permission Y is case-sensitive", "permission bash Y", permission("bash"), ports.Answer{Text: "Y"}, nil},
		{"permission n", "permission bash n", permission("bash"), ports.Answer{Text: "n"}, nil},
		{"permission N", "permission bash N", permission("bash"), ports.Answer{Text: "N"}, nil},
		{"permission any tool", "permission * y", permission("fs_read"), ports.Answer{Text: "y"}, nil},
		{"confirm yes", "confirm yes", ports.Question{Kind: ports.QuestionConfirm, Message: "Go?"}, ports.Answer{Bool: true}, nil},
		{"confirm no", "confirm no", ports.Question{Kind: ports.QuestionConfirm, Message: "Go?"}, ports.Answer{Bool: false}, nil},
		{"confirm with topic", "confirm @plugin:prune y", ports.Question{Kind: ports.QuestionConfirm, Topic: "plugin:prune"}, ports.Answer{Bool: true}, nil},
		{"confirm topic glob", "confirm @plugin:* true", ports.Question{Kind: ports.QuestionConfirm, Topic: "plugin:prune"}, ports.Answer{Bool: true}, nil},
		{"select by value", "select develop", branch, ports.Answer{Text: "develop"}, nil},
		{"select by key", "select r", branch, ports.Answer{Text: "release"}, nil},
		{"select by label", "select Release", branch, ports.Answer{Text: "release"}, nil},
		{"text bare", "text   hello world  ", ports.Question{Kind: ports.QuestionText}, ports.Answer{Text: "hello world"}, nil},
		{"text quoted", `text "  two\nlines "`, ports.Question{Kind: ports.QuestionText}, ports.Answer{Text: "  two\nlines "}, nil},
		{"text empty", `text ""`, ports.Question{Kind: ports.QuestionText}, ports.Answer{Text: ""}, nil},
		{"text raw quoted", "text `a\\b`", ports.Question{Kind: ports.QuestionText}, ports.Answer{Text: `a\b`}, nil},
		{"text heredoc", "text <<EOF\nline 1\n  line 2\nEOF", ports.Question{Kind: ports.QuestionText}, ports.Answer{Text: "line 1\n  line 2"}, nil},
		{"secret", "secret s3cr3t", ports.Question{Kind: ports.QuestionSecret, Message: "Token"}, ports.Answer{Text: "s3cr3t"}, nil},
		{"cancel", "cancel", ports.Question{Kind: ports.QuestionConfirm}, ports.Answer{}, ports.ErrCancelled},
		{"cancel by kind", "cancel select", permission("bash"), ports.Answer{}, ports.ErrCancelled},
		{"cancel by topic", "cancel @tool_permission:bash", permission("bash"), ports.Answer{}, ports.ErrCancelled},
		{"interrupt", "interrupt", ports.Question{Kind: ports.QuestionText}, ports.Answer{}, ports.ErrInterrupted},
		{"interrupt kind and topic", "interrupt confirm @plugin:x", ports.Question{Kind: ports.QuestionConfirm, Topic: "plugin:x"}, ports.Answer{}, ports.ErrInterrupted},
		{"unavailable", "unavailable", ports.Question{Kind: ports.QuestionSecret}, ports.Answer{}, ports.ErrUnavailable},
		{"comments and blanks", "# a comment\n\n   # indented\r\nconfirm yes\r\n", ports.Question{Kind: ports.QuestionConfirm}, ports.Answer{Bool: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.script)
			got, err := s.Prompter().Ask(context.Background(), tt.q)
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("Ask() error = %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("Ask() = %+v, want %+v", got, tt.want)
			}
			if err := s.Done(); err != nil {
				t.Errorf("Done() = %v", err)
			}
		})
	}
}

func TestComposeSteps(t *testing.T) {
	doc := draft.New("old text", "a = 1", "> excerpt").Render()
	tests := []struct {
		name   string
		script string
		req    ports.ComposeRequest
		want   string
		err    error
	}{
		{"text", "compose Do it next.", ports.ComposeRequest{Purpose: "queue_reply"}, "Do it next.", nil},
		{"purpose", "compose @queue_reply next", ports.ComposeRequest{Purpose: "queue_reply"}, "next", nil},
		{"keep", "compose keep", ports.ComposeRequest{Purpose: "query", Initial: "seed"}, "seed", nil},
		{"empty", "compose empty", ports.ComposeRequest{Purpose: "edit_draft", Initial: "seed"}, "", nil},
		{"quoted keep is text", `compose "keep"`, ports.ComposeRequest{Initial: "seed"}, "keep", nil},
		{"heredoc", "compose @reply <<END\nfirst\n\nthird\nEND\n", ports.ComposeRequest{Purpose: "reply"}, "first\n\nthird", nil},
		{"editor document", "compose new text", ports.ComposeRequest{InEditor: true, Document: doc}, draft.Parse(doc).WithQuery("new text").Render(), nil},
		{"editor keep", "compose keep", ports.ComposeRequest{InEditor: true, Document: doc, Initial: "old text"}, doc, nil},
		{"editor empty", "compose empty", ports.ComposeRequest{InEditor: true, Document: doc}, draft.Parse(doc).WithQuery("").Render(), nil},
		{"editor without document", "compose x", ports.ComposeRequest{InEditor: true, Initial: "i"}, "x", nil},
		{"cancel compose", "cancel compose", ports.ComposeRequest{Purpose: "reply"}, "", ports.ErrCancelled},
		{"interrupt compose", "interrupt @queue_reply", ports.ComposeRequest{Purpose: "queue_reply"}, "", ports.ErrInterrupted},
		{"unavailable compose", "unavailable", ports.ComposeRequest{Purpose: "query"}, "", ports.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.script)
			got, err := s.Prompter().Compose(context.Background(), tt.req)
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("Compose() error = %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("Compose() = %q, want %q", got, tt.want)
			}
			if err := s.Done(); err != nil {
				t.Errorf("Done() = %v", err)
			}
		})
	}
}

func TestSequenceAndDone(t *testing.T) {
	s := mustParse(t, "permission bash Y\nconfirm no\ncompose keep\ntext left over\nsecret hunter2\n")
	p := s.Prompter()
	ctx := context.Background()
	if !p.Interactive() {
		t.Fatal("Interactive() = false")
	}
	if a, err := p.Ask(ctx, permission("bash")); err != nil || a.Text != "Y" {
		t.Fatalf("step 1: %+v %v", a, err)
	}
	if a, err := p.Ask(ctx, ports.Question{Kind: ports.QuestionConfirm}); err != nil || a.Bool {
		t.Fatalf("step 2: %+v %v", a, err)
	}
	if got, err := p.Compose(ctx, ports.ComposeRequest{Initial: "i"}); err != nil || got != "i" {
		t.Fatalf("step 3: %q %v", got, err)
	}
	if s.Remaining() != 2 {
		t.Fatalf("Remaining() = %d, want 2", s.Remaining())
	}
	err := s.Done()
	want := `headless script ci.jph: 2 steps were never used: step 4 (line 4: text left over), step 5 (line 5: secret (value hidden))`
	if err == nil || err.Error() != want {
		t.Fatalf("Done() = %v\nwant %s", err, want)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Fatal("Done() leaks a secret")
	}
	if !p.Interactive() {
		t.Fatal("Interactive() = false with steps left")
	}
}

func TestCancelledContext(t *testing.T) {
	s := mustParse(t, "confirm yes")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Prompter().Ask(ctx, ports.Question{Kind: ports.QuestionConfirm}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask() = %v, want context.Canceled", err)
	}
	if s.Remaining() != 1 {
		t.Fatal("a cancelled Ask consumed a step")
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "script.jph")
	if err := os.WriteFile(path, []byte("confirm yes\nbogus step\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+":2: unknown step \"bogus\"") {
		t.Fatalf("Load() = %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load(missing) = %v", err)
	}
	if err := os.WriteFile(path, []byte("permission fs_read n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if a, err := s.Prompter().Ask(context.Background(), permission("fs_read")); err != nil || a.Text != "n" {
		t.Fatalf("Ask() = %+v %v", a, err)
	}
}

// A write tool's question shows its title and diff before the step
// answers it; a file name with a bidirectional override or a zero-width
// character is shown escaped, so the name read is the name approved.
func TestShowEscapesInvisibleCharacters(t *testing.T) {
	s := mustParse(t, "permission fs_create_file y")
	var shown strings.Builder
	s.ShowTo(&shown)
	q := permission("fs_create_file")
	q.Message = "Run tool fs_create_file: create evil\u202egnp.sh (1 lines)?"
	q.Diff = "--- /dev/null\n+++ b/evil\u202egnp.sh\n@@ -0,0 +1 @@\n+x\u200b\x1b[2J\n"
	if _, err := s.Prompter().Ask(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	got := shown.String()
	for _, want := range []string{"create evil<U+202E>gnp.sh", "+++ b/evil<U+202E>gnp.sh", "+x<U+200B>^[[2J"} {
		if !strings.Contains(got, want) {
			t.Errorf("shown text lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\u202e\u200b\x1b") {
		t.Errorf("shown text holds a raw control or format character: %q", got)
	}
}

// An optional follow-up (ESC's reason at a permission prompt) is skipped
// when the script has no step for it, without failing the run or
// consuming the next step; a step that fits answers it.
func TestOptionalQuestion(t *testing.T) {
	why := ports.Question{Kind: ports.QuestionText, Message: "Why?", Topic: "tool_refusal:bash", Optional: true}
	s, err := Parse("ci.jph", "permission fs_read y\n")
	if err != nil {
		t.Fatal(err)
	}
	p := s.Prompter()
	if _, err := p.Ask(t.Context(), why); !errors.Is(err, ports.ErrCancelled) {
		t.Fatalf("optional question without a step: err = %v, want ErrCancelled", err)
	}
	if ans, err := p.Ask(t.Context(), permission("fs_read")); err != nil || ans.Text != "y" {
		t.Fatalf("the next step was consumed by the optional question: %v %v", ans, err)
	}
	if _, err := p.Ask(t.Context(), why); !errors.Is(err, ports.ErrCancelled) {
		t.Fatalf("optional question after the script ended: err = %v, want ErrCancelled", err)
	}
	if err := s.Done(); err != nil {
		t.Fatalf("Done: %v", err)
	}
	s, _ = Parse("ci.jph", "text @tool_refusal:bash use fs_read instead\n")
	if ans, err := s.Prompter().Ask(t.Context(), why); err != nil || ans.Text != "use fs_read instead" {
		t.Fatalf("a fitting step: %v %v", ans, err)
	}
}
