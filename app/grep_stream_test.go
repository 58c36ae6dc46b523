package app_test

import (
	"context"
	"errors"
	"regexp"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// noWholeRead is the store with Events refused: a use case that reads a
// conversation whole fails.
type noWholeRead struct{ ports.ConversationStore }

func (noWholeRead) Events(context.Context, workspace.Location, conversation.ID) ([]conversation.Event, error) {
	return nil, errors.New("read whole")
}

// TestGrepStreamsConversations: jp conversation grep reads each
// conversation as it streams from the store (never whole), numbering the
// turns as Turns does.
func TestGrepStreamsConversations(t *testing.T) {
	f := newForkScene(t, 3, "needle")
	c := app.NewConversations(noWholeRead{f.store}, f.store, f.clock)
	got, skipped, err := c.Grep(context.Background(), []workspace.Location{f.loc}, regexp.MustCompile(`question 2 needle`), 0)
	if err != nil || len(skipped) > 0 {
		t.Fatalf("Grep = %v, skipped %v", err, skipped)
	}
	var turns []int
	for _, m := range got {
		turns = append(turns, m.Turn)
	}
	// The question, its tool's result (which quotes it) and the answer.
	if len(got) == 0 || turns[0] != 3 || got[0].Who != "you" || got[0].Line != "question 2 needle" {
		t.Fatalf("Grep = %+v, want matches in turn 3 starting with the question", got)
	}
	for _, m := range got {
		if m.Turn != 3 {
			t.Fatalf("match %+v is not in turn 3", m)
		}
	}
}
