package headless

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

// The scripts of docs/headless.md and docs/plugins.md (each doc block is
// checked to be byte for byte its testdata file by cmd/jp's
// TestDocExamplesAreExecuted), loaded and run against the questions the
// docs say they answer.

// TestDocValues: "Values" in docs/headless.md: a quoted text keeps its
// spaces, a raw-quoted secret keeps its backslashes, a heredoc compose is
// its lines joined without the last newline.
func TestDocValues(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "doc_values.jph"))
	if err != nil {
		t.Fatal(err)
	}
	p, ctx := s.Prompter(), context.Background()
	if a, err := p.Ask(ctx, ports.Question{Kind: ports.QuestionText, Message: "Name?"}); err != nil || a.Text != "  padded  " {
		t.Errorf("text = %q, %v", a.Text, err)
	}
	if a, err := p.Ask(ctx, ports.Question{Kind: ports.QuestionSecret, Message: "Path?"}); err != nil || a.Text != `C:\no\escapes` {
		t.Errorf("secret = %q, %v", a.Text, err)
	}
	if got, err := p.Compose(ctx, ports.ComposeRequest{Purpose: "reply"}); err != nil || got != "First line.\n\nThird line." {
		t.Errorf("compose = %q, %v", got, err)
	}
	if err := s.Done(); err != nil {
		t.Error(err)
	}
}

// TestDocExpectReserved: the "Reserved for later" script of
// docs/headless.md is refused, naming the line.
func TestDocExpectReserved(t *testing.T) {
	_, err := Load(filepath.Join("testdata", "doc_expect.jph"))
	if err == nil || !strings.Contains(err.Error(), "doc_expect.jph:1: output expectations (\"expect ...\") are not supported yet") {
		t.Fatalf("Load = %v", err)
	}
}

// TestDocPluginAnswers: the plugin prompts script of docs/plugins.md
// answers, in order, a confirm, a select, a secret of the plugins its
// topics name, cancels the next confirm, and says the last question
// cannot be answered.
func TestDocPluginAnswers(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "doc_plugin_answers.jph"))
	if err != nil {
		t.Fatal(err)
	}
	p, ctx := s.Prompter(), context.Background()
	if a, err := p.Ask(ctx, ports.Question{Kind: ports.QuestionConfirm, Message: "Delete 14 stale entries?", Topic: "plugin:prune"}); err != nil || !a.Bool {
		t.Errorf("confirm = %+v, %v", a, err)
	}
	branch := ports.Question{Kind: ports.QuestionSelect, Message: "Branch?", Topic: "plugin:deploy",
		Options: []ports.Option{{Value: "main"}, {Value: "develop"}}}
	if a, err := p.Ask(ctx, branch); err != nil || a.Text != "develop" {
		t.Errorf("select = %+v, %v", a, err)
	}
	if a, err := p.Ask(ctx, ports.Question{Kind: ports.QuestionSecret, Message: "Token?", Topic: "plugin:publish"}); err != nil || a.Text != "ghp_0123456789" {
		t.Errorf("secret = %+v, %v", a, err)
	}
	if _, err := p.Ask(ctx, ports.Question{Kind: ports.QuestionConfirm, Message: "Again?", Topic: "plugin:prune"}); !errors.Is(err, ports.ErrCancelled) {
		t.Errorf("cancel = %v", err)
	}
	if _, err := p.Ask(ctx, ports.Question{Kind: ports.QuestionText, Message: "Anything?", Topic: "plugin:other"}); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("unavailable = %v", err)
	}
	if err := s.Done(); err != nil {
		t.Error(err)
	}
}
