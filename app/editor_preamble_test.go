package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// TestEditorPreamble: the editor opens on the message, the cut line and
// the Rust jp's preamble (the model in a toml block, a note, the
// conversation's last entries newest first); only the text above the cut
// line is sent, and an unchanged block records nothing. A block the user
// changed is loaded on top of the command line; one that does not load
// is one line, and the whole document is kept as the draft.
func TestEditorPreamble(t *testing.T) {
	var f *fixture
	var editorCfg string
	f = newFixtureWith(t, func(d *app.QueryDeps) {
		d.Config = &mocks.ConfigLoaderMock{LoadFunc: func(_ context.Context, src ports.ConfigSource) (config.Resolved, error) {
			if src.EditorConfig != "" {
				editorCfg = src.EditorConfig
				if strings.Contains(src.EditorConfig, "broken") {
					return config.Resolved{}, errors.New("the configuration in the editor: line 2: broken")
				}
			}
			return config.Resolved{Config: f.cfg}, nil
		}}
	}, resp{events: []llm.Event{text("first answer")}}, resp{events: []llm.Event{text("second answer")}}, resp{events: []llm.Event{text("third answer")}})
	res, _, err := f.run(t, app.QueryInput{Message: "first question", HasMessage: true, New: true, Model: "demo/echo"})
	if err != nil {
		t.Fatal(err)
	}
	var got ports.ComposeRequest
	f.prompter.ComposeFunc = func(_ context.Context, req ports.ComposeRequest) (string, error) {
		got = req
		return draft.Parse(req.Document).WithQuery("edited question").Render(), nil
	}
	_, evs, err := f.run(t, app.QueryInput{Conversation: string(res.Conversation), Message: "seed", HasMessage: true, Edit: true})
	if err != nil {
		t.Fatal(err)
	}
	doc := draft.Parse(got.Document)
	if doc.Query() != "seed" || !doc.HasMeta() {
		t.Fatalf("document = %q: want the seed, then the cut line", got.Document)
	}
	if c := doc.Config(); !strings.Contains(c, "[assistant.model]") || !strings.Contains(c, `id = "demo/echo"`) {
		t.Errorf("configuration block = %q, want the model", c)
	}
	meta := doc.Meta()
	you, answer := strings.Index(meta, "## You on "), strings.Index(meta, "## Assistant (demo/echo) on ")
	if !strings.Contains(meta, "# Conversation History (last 10 entries)") || you < 0 || answer < 0 || answer > you ||
		!strings.Contains(meta, "first question") || !strings.Contains(meta, "first answer") || !strings.Contains(meta, "> NOTE:") {
		t.Errorf("meta section = %q, want the note and the history, newest first", meta)
	}
	var sent []string
	for _, e := range evs {
		if e.Type == conversation.EventTypeChatRequest {
			sent = append(sent, e.Content)
		}
	}
	if len(sent) != 2 || sent[1] != "edited question" {
		t.Errorf("requests = %q: want the text above the cut line alone", sent)
	}
	if editorCfg != "" {
		t.Errorf("an unchanged block was loaded again: %q", editorCfg)
	}

	// A block the user changed is loaded as part of the command line.
	f.prompter.ComposeFunc = func(_ context.Context, req ports.ComposeRequest) (string, error) {
		d := strings.Replace(req.Document, `id = "demo/echo"`, `id = "demo/other"`, 1)
		return draft.Parse(d).WithQuery("third").Render(), nil
	}
	if _, _, err := f.run(t, app.QueryInput{Conversation: string(res.Conversation)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(editorCfg, `id = "demo/other"`) {
		t.Errorf("the loader got EditorConfig %q, want the edited block", editorCfg)
	}

	// A block that does not load: one line, nothing sent, the whole
	// document is the draft.
	var written string
	f.prompter.ComposeFunc = func(_ context.Context, req ports.ComposeRequest) (string, error) {
		written = strings.Replace(draft.Parse(req.Document).WithQuery("fourth, kept").Render(), "[assistant.model]", "broken = [\n[assistant.model]", 1)
		return written, nil
	}
	_, evs, err = f.run(t, app.QueryInput{Conversation: string(res.Conversation)})
	if err == nil || !strings.Contains(err.Error(), "the configuration below the cut line: ") || !strings.Contains(err.Error(), "jp q -i "+string(res.Conversation)+" opens it again") {
		t.Fatalf("err = %v", err)
	}
	d, derr := f.store.ReadDraft(context.Background(), f.loc(t), res.Conversation)
	if derr != nil || d.Text != written {
		t.Fatalf("draft = %q, %v; want the whole document", d.Text, derr)
	}
	for _, e := range evs {
		if e.Type == conversation.EventTypeChatRequest && strings.Contains(e.Content, "fourth") {
			t.Fatal("the message was sent")
		}
	}
}
