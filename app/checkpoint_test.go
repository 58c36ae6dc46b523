package app_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// The block in flight reaches its checkpoint with its first delta, in
// the run's conversation; a failed checkpoint never stops the turn, and
// its text is tried again, with what followed, at the next delta. The
// checkpoint is dropped by the store, not the turn, once the block is an
// event.
func TestStreamCheckpointsTheBlockInFlight(t *testing.T) {
	t.Parallel()
	ckpts := &mocks.BlockCheckpointsMock{}
	ckpts.CheckpointBlockFunc = func(context.Context, workspace.Location, conversation.ID, string, bool, bool) error {
		if len(ckpts.CheckpointBlockCalls()) == 1 {
			return errors.New("disk full")
		}
		return nil
	}
	f := newFixtureWith(t, func(d *app.QueryDeps) { d.Checkpoints = ckpts }, resp{events: []llm.Event{
		{Kind: llm.EventTextDelta, Text: "Hel"},
		{Kind: llm.EventTextDelta, Text: "lo"},
		{Kind: llm.EventTextDelta, Text: "!"},
	}})
	res, evs, err := f.run(t, app.QueryInput{Message: "hi", HasMessage: true, New: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.printer.text(ports.ChannelContent); got != "Hello!\n" {
		t.Errorf("content = %q", got)
	}
	var answer string
	for _, ev := range evs {
		if ev.Type == conversation.EventTypeChatResponse {
			answer += ev.Message
		}
	}
	if answer != "Hello!" {
		t.Errorf("recorded answer = %q, want the whole block", answer)
	}
	calls := ckpts.CheckpointBlockCalls()
	// The clock moves a millisecond per reading, so after the first
	// written checkpoint the rest of the block waits: for the end of the
	// stream, which writes it, so that the checkpoint holds the whole
	// block before the turn goes on.
	if len(calls) != 3 {
		t.Fatalf("checkpoints = %+v, want the failed first delta, its retry and the rest at the stream's end", calls)
	}
	for i, want := range []struct {
		text  string
		fresh bool
	}{{"Hel", true}, {"Hello", true}, {"!", false}} {
		c := calls[i]
		if c.Text != want.text || c.Reasoning || c.Fresh != want.fresh || c.ID != res.Conversation || c.Loc.Root != "/proj" {
			t.Errorf("checkpoint %d = {text %q reasoning %v fresh %v id %s root %s}, want %q, fresh %v, in %s at /proj",
				i, c.Text, c.Reasoning, c.Fresh, c.ID, c.Loc.Root, want.text, want.fresh, res.Conversation)
		}
	}
	if n := len(ckpts.DropCheckpointCalls()); n != 0 {
		t.Errorf("the turn dropped the checkpoint %d times; the store does that", n)
	}
}
