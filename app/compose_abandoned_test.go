package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// TestComposeAbandonedKeepsText: text typed into jp q's composer and then
// abandoned (ESC, Ctrl-C) is not sent and not lost: it becomes the
// conversation's draft, or, for a new conversation, is printed back.
func TestComposeAbandonedKeepsText(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"esc", ports.ErrCancelled},
		{"ctrl-c", ports.ErrInterrupted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, resp{events: []llm.Event{text("first answer")}})
			res, _, err := f.run(t, app.QueryInput{Message: "first", HasMessage: true, New: true})
			if err != nil {
				t.Fatal(err)
			}
			f.prompter.ComposeFunc = func(context.Context, ports.ComposeRequest) (string, error) {
				return "half a thought I must not lose", tt.err
			}
			_, _, err = f.run(t, app.QueryInput{Conversation: string(res.Conversation)})
			if tt.err == ports.ErrCancelled && err != nil || tt.err == ports.ErrInterrupted && !errors.Is(err, ports.ErrInterrupted) {
				t.Fatalf("err = %v", err)
			}
			found, _ := f.store.Find(context.Background(), "/proj")
			d, derr := f.store.ReadDraft(context.Background(), workspace.Location{ID: found.ID, Root: found.Root}, res.Conversation)
			if derr != nil || draft.Parse(d.Text).Query() != "half a thought I must not lose" {
				t.Fatalf("draft = %q, %v", d.Text, derr)
			}
			if !strings.Contains(f.printer.text(ports.ChannelChrome), "Not sent. What you typed is the draft of conversation "+string(res.Conversation)) {
				t.Errorf("chrome = %q", f.printer.text(ports.ChannelChrome))
			}

			// A new conversation has no draft yet: the text is printed back.
			_, _, err = f.run(t, app.QueryInput{New: true})
			if tt.err == ports.ErrCancelled && err != nil {
				t.Fatal(err)
			}
			if got := f.printer.text(ports.ChannelError); !strings.Contains(got, "Not sent. What you typed:\nhalf a thought I must not lose") {
				t.Errorf("error channel = %q", got)
			}
		})
	}
}

// TestEditFlagOpensEditorAndKeepsSeed: -e composes in the editor
// (editor.cmd passed along) on the seed text whatever compose_in_editor
// says; an editor quit without saving keeps the seed as the draft, with
// one "Not sent" line and no "Nothing to send" line after it.
func TestEditFlagOpensEditorAndKeepsSeed(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{text("first answer")}})
	res, _, err := f.run(t, app.QueryInput{Message: "first", HasMessage: true, New: true})
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Editor.Cmd = "my-editor --wait"
	var got ports.ComposeRequest
	f.prompter.ComposeFunc = func(_ context.Context, req ports.ComposeRequest) (string, error) {
		got = req
		return "", ports.ErrCancelled // vim's :cq: nothing taken from the editor
	}
	if _, _, err = f.run(t, app.QueryInput{Conversation: string(res.Conversation), Message: "seed text", HasMessage: true, Edit: true}); err != nil {
		t.Fatal(err)
	}
	if !got.InEditor || got.FallbackInline || got.Editor != "my-editor --wait" || got.Initial != "seed text" {
		t.Errorf("compose request = %+v, want the editor on the seed text", got)
	}
	found, _ := f.store.Find(context.Background(), "/proj")
	d, derr := f.store.ReadDraft(context.Background(), workspace.Location{ID: found.ID, Root: found.Root}, res.Conversation)
	if derr != nil || draft.Parse(d.Text).Query() != "seed text" {
		t.Fatalf("draft = %q, %v; want the seed text", d.Text, derr)
	}
	chrome := f.printer.text(ports.ChannelChrome)
	if strings.Count(chrome, "Not sent.") != 1 || strings.Contains(chrome, "Nothing to send") {
		t.Errorf("chrome = %q, want one Not sent line and nothing contradicting it", chrome)
	}
}
