package app_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// When the draft cannot be written, abandoned text is printed back
// instead: what the user typed is never lost, and the "Not sent" line
// does not claim a draft that does not exist. The draft is written for
// the conversation being composed, as the query text of an empty draft
// when there was none.
func TestAbandonedTextPrintedWhenTheDraftCannotBeWritten(t *testing.T) {
	drafts := &mocks.DraftStoreMock{
		ReadDraftFunc: func(_ context.Context, _ workspace.Location, id conversation.ID) (ports.Draft, error) {
			return ports.Draft{}, fmt.Errorf("draft of %s: %w", id, ports.ErrNotFound)
		},
		WriteDraftFunc: func(context.Context, workspace.Location, conversation.ID, string, string) (string, error) {
			return "", errors.New("no space left on device")
		},
		DeleteDraftFunc: func(context.Context, workspace.Location, conversation.ID) error { return nil },
	}
	f := newFixtureWith(t, func(d *app.QueryDeps) { d.Drafts = drafts }, resp{events: []llm.Event{text("first answer")}})
	res, _, err := f.run(t, app.QueryInput{Message: "first", HasMessage: true, New: true})
	if err != nil {
		t.Fatal(err)
	}
	f.prompter.ComposeFunc = func(context.Context, ports.ComposeRequest) (string, error) {
		return "half a thought I must not lose", ports.ErrCancelled
	}
	if _, _, err := f.run(t, app.QueryInput{Conversation: string(res.Conversation)}); err != nil {
		t.Fatal(err)
	}
	writes := drafts.WriteDraftCalls()
	if len(writes) != 1 || writes[0].ID != res.Conversation || !strings.Contains(writes[0].Text, "half a thought I must not lose") || writes[0].IfRevision != "" {
		t.Fatalf("draft writes = %+v, want one of the typed text for %s", writes, res.Conversation)
	}
	if got := f.printer.text(ports.ChannelError); !strings.Contains(got, "Not sent. What you typed:\nhalf a thought I must not lose") {
		t.Errorf("error channel = %q, want the text printed back", got)
	}
	if chrome := f.printer.text(ports.ChannelChrome); strings.Contains(chrome, "is the draft of conversation") {
		t.Errorf("chrome = %q claims a draft that was not written", chrome)
	}
}
