package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// TestTemplateErrorKeepsComposedText: a composed -% message whose
// variable has no value is refused in one line and what was typed is
// kept as the conversation's draft, not lost.
func TestTemplateErrorKeepsComposedText(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{text("first answer")}})
	res, _, err := f.run(t, app.QueryInput{Message: "first", HasMessage: true, New: true})
	if err != nil {
		t.Fatal(err)
	}
	f.prompter.ComposeFunc = func(context.Context, ports.ComposeRequest) (string, error) {
		return "Hi {{ nobody }}, a long thought", nil
	}
	_, _, err = f.run(t, app.QueryInput{Conversation: string(res.Conversation), Flags: app.QueryFlags{Template: true}})
	if err == nil || !strings.Contains(err.Error(), "template variable nobody has no value") {
		t.Fatalf("err = %v", err)
	}
	found, _ := f.store.Find(context.Background(), "/proj")
	d, derr := f.store.ReadDraft(context.Background(), workspace.Location{ID: found.ID, Root: found.Root}, res.Conversation)
	if derr != nil || draft.Parse(d.Text).Query() != "Hi {{ nobody }}, a long thought" {
		t.Fatalf("draft = %q, %v", d.Text, derr)
	}
}

// TestTitleAndLabelsOnTheRunsConversation: --title and --label apply to
// the conversation the run asks in, and no title is generated.
func TestTitleAndLabelsOnTheRunsConversation(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{text("answer")}})
	res, _, err := f.run(t, app.QueryInput{Message: "hello", HasMessage: true, New: true,
		Flags: app.QueryFlags{Title: "Mine", Labels: []string{"a", "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	found, _ := f.store.Find(context.Background(), "/proj")
	s, err := f.store.Get(context.Background(), workspace.Location{ID: found.ID, Root: found.Root}, res.Conversation)
	if err != nil || s.Metadata.Title != "Mine" || strings.Join(s.Metadata.Labels(), ",") != "a,b" {
		t.Fatalf("metadata = %+v, %v", s.Metadata, err)
	}
	if _, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true, New: true,
		Flags: app.QueryFlags{Title: "a", NoTitle: true}}); err == nil || !strings.Contains(err.Error(), "exclude each other") {
		t.Errorf("--title with --no-title: %v", err)
	}
}
