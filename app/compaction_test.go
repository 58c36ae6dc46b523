package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/compact"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
)

// summaryProvider answers summary requests with summary (or err) and
// records them; every other request gets "answer".
type summaryProvider struct {
	summary string
	err     error
	asked   []llm.Request
}

func (p *summaryProvider) provider() *mocks.ProviderMock {
	return &mocks.ProviderMock{StreamFunc: func(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
		if !req.Summary {
			if err := emit(text("answer " + req.Messages[len(req.Messages)-1].Text)); err != nil {
				return err
			}
			return emit(llm.Event{Kind: llm.EventDone, Stop: llm.StopEnd})
		}
		p.asked = append(p.asked, req)
		if p.err != nil {
			return p.err
		}
		return emit(text(p.summary))
	}}
}

// compactFixture is a conversation of four turns.
func compactFixture(t *testing.T, p *summaryProvider) (*fixture, workspace.Location, conversation.ID) {
	t.Helper()
	f := newFixture(t)
	f.real = p.provider()
	var id conversation.ID
	for i, m := range []string{"one", "two", "three", "four"} {
		in := app.QueryInput{Message: m, HasMessage: true}
		if i > 0 {
			in.Conversation = string(id)
		}
		res, _, err := f.run(t, in)
		if err != nil {
			t.Fatal(err)
		}
		id = res.Conversation
	}
	found, _ := f.store.Find(context.Background(), "/proj")
	return f, workspace.Location{ID: found.ID, Root: found.Root}, id
}

func (f *fixture) eventCount(t *testing.T, loc workspace.Location, id conversation.ID) int {
	t.Helper()
	evs, err := f.store.Events(context.Background(), loc, id)
	if err != nil {
		t.Fatal(err)
	}
	return len(evs)
}

// The default rule keeps the first and the last turn; a dry run appends
// nothing; a summary replaces turns 2..3 in the next request; a failed
// summary leaves the conversation as it was; a reset undoes the overlays
// with an event of its own.
func TestCompact(t *testing.T) {
	p := &summaryProvider{summary: "S: two and three"}
	f, loc, id := compactFixture(t, p)
	ctx := context.Background()
	n := f.eventCount(t, loc, id)

	dry, err := f.query.Compact(ctx, app.CompactInput{Loc: loc, Conversation: id, Spec: app.CompactSpec{DryRun: true}})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Turns != 4 || len(dry.Added) != 1 || dry.Added[0].FromTurn != 1 || dry.Added[0].ToTurn != 2 || len(dry.Events) != 0 {
		t.Errorf("dry run = %+v", dry)
	}
	if f.eventCount(t, loc, id) != n {
		t.Error("a dry run appended events")
	}

	p.err = errors.New("model down")
	sum := compact.DefaultRule()
	sum.Summary = &compact.Summary{Context: "be brief"}
	if _, err := f.query.Compact(ctx, app.CompactInput{Loc: loc, Conversation: id, Spec: app.CompactSpec{Rules: []compact.Rule{sum}}}); err == nil ||
		!strings.Contains(err.Error(), "unchanged") || strings.Contains(err.Error(), "\n") {
		t.Errorf("failed summary: %v", err)
	}
	if f.eventCount(t, loc, id) != n {
		t.Error("a failed summary appended events")
	}

	p.err = nil
	res, err := f.query.Compact(ctx, app.CompactInput{Loc: loc, Conversation: id, Spec: app.CompactSpec{Rules: []compact.Rule{sum}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || res.Added[0].Summary == nil || *res.Added[0].Summary != "S: two and three" {
		t.Fatalf("compact = %+v", res)
	}
	asked := p.asked[len(p.asked)-1]
	last := asked.Messages[len(asked.Messages)-1].Text
	if asked.Messages[0].Text != "two" || !strings.Contains(last, "Additional context: be brief") || !strings.Contains(asked.System, "File paths") {
		t.Errorf("summary request = %+v", asked)
	}
	if res.TokensAfter >= res.TokensBefore {
		t.Errorf("tokens %d -> %d", res.TokensBefore, res.TokensAfter)
	}

	// The next turn sends the summary in place of turns 2 and 3.
	var sent []llm.Message
	f.real = &mocks.ProviderMock{StreamFunc: func(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
		sent = req.Messages
		if err := emit(text("ok")); err != nil {
			return err
		}
		return emit(llm.Event{Kind: llm.EventDone, Stop: llm.StopEnd})
	}}
	if _, _, err := f.run(t, app.QueryInput{Conversation: string(id), Message: "five", HasMessage: true}); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range sent {
		texts = append(texts, m.Text)
	}
	want := "one|answer one|[Summary of previous conversation]|S: two and three|four|answer four|five"
	if got := strings.Join(texts, "|"); got != want {
		t.Errorf("sent %s\nwant %s", got, want)
	}

	reset, err := f.query.Compact(ctx, app.CompactInput{Loc: loc, Conversation: id, Spec: app.CompactSpec{Reset: true}})
	if err != nil || reset.Undone != 1 || len(reset.Events) != 1 || !reset.Events[0].IsCompactionReset() {
		t.Fatalf("reset = %+v, %v", reset, err)
	}
	again, _ := f.query.Compact(ctx, app.CompactInput{Loc: loc, Conversation: id, Spec: app.CompactSpec{Reset: true}})
	if again.Undone != 0 || len(again.Events) != 0 {
		t.Errorf("second reset = %+v", again)
	}
}

// A fork copies every complete turn of a compacted conversation (an
// overlay after a turn's end does not make it incomplete) and its
// overlays.
func TestForkKeepsCompactedTurns(t *testing.T) {
	f, loc, id := compactFixture(t, &summaryProvider{})
	ctx := context.Background()
	if _, err := f.query.Compact(ctx, app.CompactInput{Loc: loc, Conversation: id}); err != nil {
		t.Fatal(err)
	}
	convs := app.NewConversations(f.store, f.store, clockFrom(time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)))
	nid, err := convs.Fork(ctx, loc, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := f.store.Events(ctx, loc, nid)
	if err != nil {
		t.Fatal(err)
	}
	starts, overlays := 0, 0
	for _, e := range evs {
		if e.Type == conversation.EventTypeTurnStart {
			starts++
		}
		if e.Compaction != nil {
			overlays++
		}
	}
	if starts != 4 || overlays != 1 {
		t.Errorf("fork has %d turns and %d overlays, want 4 and 1", starts, overlays)
	}
}
