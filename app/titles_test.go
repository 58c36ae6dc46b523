package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// titleProvider answers title requests with title (or err, or by blocking
// until cancelled), and every other request with "answer"; provider is
// the Provider mock that does so.
type titleProvider struct {
	title  string
	err    error
	block  bool
	titled chan llm.Request // receives each title request, when set
	// answered, when set, is closed once the title is answered, and the
	// answer waits for it: the title comes before the turn ends.
	answered chan struct{}
}

func (p *titleProvider) provider() *mocks.ProviderMock {
	return &mocks.ProviderMock{StreamFunc: p.stream}
}

func (p *titleProvider) stream(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
	if !req.Title {
		if p.answered != nil {
			select {
			case <-p.answered:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := emit(text("answer")); err != nil {
			return err
		}
		return emit(llm.Event{Kind: llm.EventDone, Stop: llm.StopEnd})
	}
	if p.titled != nil {
		p.titled <- req
	}
	if p.block {
		<-ctx.Done()
		return ctx.Err()
	}
	if p.err != nil {
		return p.err
	}
	err := emit(text(p.title))
	if p.answered != nil {
		close(p.answered)
	}
	return err
}

func (f *fixture) title(t *testing.T, id conversation.ID) string {
	t.Helper()
	found, err := f.store.Find(context.Background(), "/proj")
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.store.Get(context.Background(), workspace.Location{ID: found.ID, Root: found.Root}, id)
	if err != nil {
		t.Fatal(err)
	}
	return s.Metadata.Title
}

// The title request starts with the first turn, from its first message
// alone, and its answer is written, sanitised to one line, once it comes.
func TestTitleGeneratedWithFirstTurn(t *testing.T) {
	f := newFixture(t)
	p := &titleProvider{title: "  \"Reversing\x1b[31m a list.\"\nsecond line", titled: make(chan llm.Request, 1), answered: make(chan struct{})}
	f.real = p.provider()
	f.cfg.Conversation.Title.Model = ""
	res, _, err := f.run(t, app.QueryInput{Message: "how do I reverse a list?", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	req := <-p.titled
	if !strings.Contains(req.Messages[0].Text, "how do I reverse a list?") || strings.Contains(req.Messages[0].Text, "answer") || req.System == "" {
		t.Errorf("title request = %+v", req)
	}
	if got := f.title(t, res.Conversation); got != "Reversing [31m a list" {
		t.Errorf("title = %q", got)
	}
	// The second turn generates nothing more.
	p.answered = nil
	if _, _, err := f.run(t, app.QueryInput{Message: "again", HasMessage: true}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-p.titled:
		t.Errorf("a second title request: %+v", r)
	default:
	}
}

// "none" keeps the first message as the title; so does a failed title
// request, which prints nothing.
func TestTitleNoneAndErrorKeepFirstMessage(t *testing.T) {
	for name, p := range map[string]*titleProvider{
		"none":  {title: "Never"},
		"error": {err: &llm.Error{Kind: llm.ErrorFatal, Provider: "demo", Message: "invalid request"}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.real = p.provider()
			f.cfg.Conversation.Title.Model = ""
			if name == "none" {
				f.cfg.Conversation.Title.Model = "none"
			}
			res, _, err := f.run(t, app.QueryInput{Message: "keep my words", HasMessage: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := f.title(t, res.Conversation); got != "keep my words" {
				t.Errorf("title = %q", got)
			}
			if s := f.printer.text(ports.ChannelError) + f.printer.text(ports.ChannelChrome); strings.Contains(s, "title") {
				t.Errorf("printed: %q", s)
			}
		})
	}
}

// A title the user set is never replaced by generation.
func TestTitleSetByUserIsKept(t *testing.T) {
	f := newFixture(t)
	f.real = (&titleProvider{title: "Generated"}).provider()
	f.cfg.Conversation.Title.Model = ""
	found, err := f.store.Find(context.Background(), "/proj")
	if err != nil {
		t.Fatal(err)
	}
	id, err := f.store.Create(context.Background(), workspace.Location{ID: found.ID, Root: found.Root}, ports.NewConversation{Title: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.run(t, app.QueryInput{Conversation: string(id), Message: "first words", HasMessage: true}); err != nil {
		t.Fatal(err)
	}
	if got := f.title(t, id); got != "mine" {
		t.Errorf("title = %q", got)
	}
}

// A run never waits for its title: one still being asked for when the
// turn is recorded is cancelled (no time passes in the bubble: no timer
// was waited on), the answer is kept, the title stays the first message,
// the title's goroutine has stopped when Run returns (the bubble would
// not end otherwise, and goleak checks the package), and the conversation
// is marked title_pending. The next run asks again, beside its turn, with
// the first exchange, and clears the mark.
func TestTitleNeverDelaysTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.real = (&titleProvider{block: true}).provider()
		f.cfg.Conversation.Title.Model = ""
		start := time.Now()
		res, _, err := f.run(t, app.QueryInput{Message: "slow title", HasMessage: true})
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the run waited %v for its title", waited)
		}
		if got := f.printer.text(ports.ChannelContent); got != "answer\n" {
			t.Errorf("content = %q", got)
		}
		if got := f.title(t, res.Conversation); got != "slow title" {
			t.Errorf("title = %q", got)
		}
		found, err := f.store.Find(context.Background(), "/proj")
		if err != nil {
			t.Fatal(err)
		}
		loc := workspace.Location{ID: found.ID, Root: found.Root}
		if lm, err := f.store.LocalMetadata(context.Background(), loc, res.Conversation); err != nil || !lm.TitlePending() {
			t.Fatalf("title_pending not marked: %+v, %v", lm, err)
		}

		p := &titleProvider{title: "Slow Title Done", titled: make(chan llm.Request, 1), answered: make(chan struct{})}
		f.real = p.provider()
		if _, _, err := f.run(t, app.QueryInput{Conversation: string(res.Conversation), Message: "next", HasMessage: true}); err != nil {
			t.Fatal(err)
		}
		req := <-p.titled
		if !strings.Contains(req.Messages[0].Text, "slow title") || !strings.Contains(req.Messages[0].Text, "answer") {
			t.Errorf("handed-on title request = %q", req.Messages[0].Text)
		}
		if got := f.title(t, res.Conversation); got != "Slow Title Done" {
			t.Errorf("title after the next run = %q", got)
		}
		if lm, err := f.store.LocalMetadata(context.Background(), loc, res.Conversation); err != nil || lm.TitlePending() {
			t.Errorf("title_pending not cleared: %+v, %v", lm, err)
		}
	})
}

// GenerateTitle redoes the title now, whatever it was.
func TestGenerateTitleReplaces(t *testing.T) {
	f := newFixture(t)
	f.real = (&titleProvider{title: "Second Try"}).provider()
	f.cfg.Conversation.Title.Model = "none"
	res, _, err := f.run(t, app.QueryInput{Message: "words", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	found, _ := f.store.Find(context.Background(), "/proj")
	loc := workspace.Location{ID: found.ID, Root: found.Root}
	if _, err := f.query.GenerateTitle(context.Background(), app.TitleInput{Loc: loc, Conversation: res.Conversation}); err == nil || !strings.Contains(err.Error(), `"none"`) {
		t.Fatalf("with none: %v", err)
	}
	f.cfg.Conversation.Title.Model = ""
	got, err := f.query.GenerateTitle(context.Background(), app.TitleInput{Loc: loc, Conversation: res.Conversation})
	if err != nil || got != "Second Try" || f.title(t, res.Conversation) != "Second Try" {
		t.Fatalf("GenerateTitle = %q, %v; stored %q", got, err, f.title(t, res.Conversation))
	}
	f.real = (&titleProvider{err: errors.New("boom")}).provider()
	if _, err := f.query.GenerateTitle(context.Background(), app.TitleInput{Loc: loc, Conversation: res.Conversation}); err == nil || strings.Count(err.Error(), "generate the title") != 1 {
		t.Fatalf("error = %v", err)
	}
}
