package app_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// writeLog records, in order, the store writes a run makes: each Append
// as its event types, "delete draft", "last root", and what the draft
// held when an Append recorded a queued chat_request.
type writeLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *writeLog) add(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
}

func (l *writeLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// spyStores puts ConversationStore and DraftStore mocks in front of the
// fixture's memstore, recording the writes in log.
func spyStores(log *writeLog) func(*app.QueryDeps) {
	return func(d *app.QueryDeps) {
		real := d.Store.(*memstore.Store)
		d.Store = &mocks.ConversationStoreMock{
			ActiveFunc: real.Active, CreateFunc: real.Create, EventsFunc: real.Events, GetFunc: real.Get,
			ListFunc: real.List, LocalMetadataFunc: real.LocalMetadata, RemoveFunc: real.Remove,
			RestoreFunc: real.Restore, ScanEventsFunc: real.ScanEvents, SetActiveFunc: real.SetActive,
			TrashFunc: real.Trash, TrashedFunc: real.Trashed, UpdateMetadataFunc: real.UpdateMetadata,
			AppendFunc: func(ctx context.Context, loc workspace.Location, id conversation.ID, evs ...conversation.Event) error {
				var names []string
				for _, e := range evs {
					names = append(names, e.Type.String())
					if e.Type == conversation.EventTypeChatRequest && e.Author == conversation.AuthorQueued {
						// The draft must still hold the text while the
						// conversation does not yet.
						d, err := real.ReadDraft(ctx, loc, id)
						log.add("draft before append: " + draft.Parse(d.Text).Query() + errText(err))
					}
				}
				log.add(strings.Join(names, ","))
				return real.Append(ctx, loc, id, evs...)
			},
			UpdateLocalMetadataFunc: func(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(*conversation.LocalMetadata) error) error {
				log.add("last root")
				return real.UpdateLocalMetadata(ctx, loc, id, fn)
			},
		}
		d.Drafts = &mocks.DraftStoreMock{
			ReadDraftFunc: real.ReadDraft, WriteDraftFunc: real.WriteDraft, DraftPathFunc: real.DraftPath,
			DeleteDraftFunc: func(ctx context.Context, loc workspace.Location, id conversation.ID) error {
				log.add("delete draft")
				return real.DeleteDraft(ctx, loc, id)
			},
		}
	}
}

func errText(err error) string {
	if err != nil {
		return " (" + err.Error() + ")"
	}
	return ""
}

// spyQueueFixture is queueFixture over spyStores; with, when set, changes
// the deps further.
func spyQueueFixture(t *testing.T, log *writeLog, with func(*app.QueryDeps), composes ...string) *fixture {
	t.Helper()
	f := newFixtureWith(t, func(d *app.QueryDeps) {
		spyStores(log)(d)
		if with != nil {
			with(d)
		}
	})
	f.real = pressingProvider(f, 20)
	f.answers = []string{"q"}
	f.prompter.ComposeFunc = func(ctx context.Context, req ports.ComposeRequest) (string, error) {
		if len(composes) == 0 {
			t.Fatalf("unexpected compose %+v", req)
		}
		c := composes[0]
		composes = composes[1:]
		return c, nil
	}
	return f
}

// A queued reply sent at once (no countdown) carries the first turn's end
// to the queued turn's first write: one Append of the last answer,
// turn_end, turn_start and the queued chat_request, made while the draft
// still holds the text; the draft is removed after it; the last-root
// record is written once for the run.
func TestQueuedDispatchCarriesTheTurnEnd(t *testing.T) {
	log := &writeLog{}
	f := spyQueueFixture(t, log, nil, "then this")
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 0
	res, evs, err := f.run(t, app.QueryInput{Message: "long", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"turn_start,chat_request",
		"last root",
		"draft before append: then this",
		"chat_response,turn_end,turn_start,chat_request",
		"delete draft",
		"chat_response,turn_end",
	}
	if got := log.all(); !slices.Equal(got, want) {
		t.Fatalf("writes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if got := types(evs); got != "turn_start,chat_request,chat_response,turn_end,turn_start,chat_request,chat_response,turn_end" {
		t.Fatalf("events = %s", got)
	}
	if evs[6].Message != "You said: then this" {
		t.Fatalf("the queued turn answered %+v", evs[6])
	}
	// The queued turn's request held the first turn's answer.
	calls := f.real.(*mocks.ProviderMock).StreamCalls()
	if len(calls) != 2 {
		t.Fatalf("%d provider calls, want 2", len(calls))
	}
	msgs := calls[1].Req.Messages
	if len(msgs) != 3 || !strings.HasPrefix(msgs[1].Text, "w w ") || msgs[2].Text != "then this" {
		t.Fatalf("the queued turn's request = %+v", msgs)
	}
	if _, err := f.store.ReadDraft(context.Background(), f.loc(t), res.Conversation); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("draft after the queued turn: %v, want none", err)
	}
}

// With a countdown on a terminal, the turn's end is written when the turn
// ends, as without a queued reply: the countdown may keep the draft.
func TestQueuedReplyWithCountdownWritesTheTurnEndFirst(t *testing.T) {
	log := &writeLog{}
	f := spyQueueFixture(t, log, nil, "after the countdown")
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 2
	if _, _, err := f.run(t, app.QueryInput{Message: "long", HasMessage: true}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"turn_start,chat_request",
		"last root",
		"chat_response,turn_end",
		"draft before append: after the countdown",
		"turn_start,chat_request",
		"delete draft",
		"chat_response,turn_end",
	}
	if got := log.all(); !slices.Equal(got, want) {
		t.Fatalf("writes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// query.loop = "never" keeps the queued reply as the draft: the turn's end
// is written at once and the draft is left alone.
func TestQueuedReplyKeptByLoopNeverWritesTheTurnEnd(t *testing.T) {
	log := &writeLog{}
	f := spyQueueFixture(t, log, nil, "for later")
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 0
	f.cfg.Query.Loop = config.LoopPolicyNever
	res, evs, err := f.run(t, app.QueryInput{Message: "long", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := types(evs); got != "turn_start,chat_request,chat_response,turn_end" {
		t.Fatalf("events = %s", got)
	}
	if got := log.all(); slices.Contains(got, "delete draft") {
		t.Fatalf("writes %v removed the draft", got)
	}
	d, err := f.store.ReadDraft(context.Background(), f.loc(t), res.Conversation)
	if err != nil || draft.Parse(d.Text).Query() != "for later" {
		t.Fatalf("draft = %q, %v; want the queued reply", d.Text, err)
	}
}

// A queued turn that fails before it records anything (its tools cannot
// be opened) still has the previous turn's end written, carried or not,
// and leaves the queued reply in the draft.
func TestCarriedTurnEndIsWrittenWhenTheQueuedTurnFails(t *testing.T) {
	log := &writeLog{}
	tools := echoTools()
	open := tools.OpenFunc
	tools.OpenFunc = func(ctx context.Context, cfg config.Config, root string) (ports.ToolServer, func(), error) {
		if len(tools.OpenCalls()) == 2 {
			return nil, nil, errors.New("the tools are gone")
		}
		return open(ctx, cfg, root)
	}
	f := spyQueueFixture(t, log, func(d *app.QueryDeps) { d.Tools = tools }, "never sent")
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 0
	res, evs, err := f.run(t, app.QueryInput{Message: "long", HasMessage: true})
	if err == nil || !strings.Contains(err.Error(), "the tools are gone") {
		t.Fatalf("err = %v, want the queued turn's failure", err)
	}
	if got := types(evs); got != "turn_start,chat_request,chat_response,turn_end" {
		t.Fatalf("events = %s, want the first turn complete", got)
	}
	d, derr := f.store.ReadDraft(context.Background(), f.loc(t), res.Conversation)
	if derr != nil || draft.Parse(d.Text).Query() != "never sent" {
		t.Fatalf("draft = %q, %v; want the queued reply kept", d.Text, derr)
	}
	if got := log.all(); slices.Contains(got, "delete draft") {
		t.Fatalf("writes %v removed the draft", got)
	}
}

// The request of a queued turn goes out before its draft is removed: the
// removal's fsync is off the path to the request, and so is the carried
// append's. Here the removal waits
// for the request to have reached the provider (which runs in its own
// goroutine): removing the draft before starting the request would never
// return.
func TestQueuedDraftRemovedAfterTheRequestStarts(t *testing.T) {
	log := &writeLog{}
	requested := make(chan struct{})
	f := spyQueueFixture(t, log, func(d *app.QueryDeps) {
		drafts := d.Drafts.(*mocks.DraftStoreMock)
		del := drafts.DeleteDraftFunc
		drafts.DeleteDraftFunc = func(ctx context.Context, loc workspace.Location, id conversation.ID) error {
			<-requested
			return del(ctx, loc, id)
		}
	}, "second")
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 0
	inner := f.real.(*mocks.ProviderMock)
	f.real = &mocks.ProviderMock{StreamFunc: func(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
		if len(req.Messages) > 1 {
			log.add("request")
			close(requested)
		}
		return inner.Stream(ctx, req, emit)
	}}
	res, _, err := f.run(t, app.QueryInput{Message: "long", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	got := log.all()
	carried := slices.Index(got, "chat_response,turn_end,turn_start,chat_request")
	request := slices.Index(got, "request")
	deleted := slices.Index(got, "delete draft")
	// The request may start before the carried append is done (it does
	// not depend on it); the draft goes after both.
	if carried < 0 || request < 0 || deleted < request || deleted < carried {
		t.Fatalf("writes %v: want the carried append and the request, then the draft's removal", got)
	}
	if _, err := f.store.ReadDraft(context.Background(), f.loc(t), res.Conversation); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("draft after the run: %v, want none", err)
	}
}

// loc is the fixture's workspace location.
func (f *fixture) loc(t *testing.T) workspace.Location {
	t.Helper()
	found, err := f.store.Find(context.Background(), "/proj")
	if err != nil {
		t.Fatal(err)
	}
	return workspace.Location{ID: found.ID, Root: found.Root}
}

// The queued turn's first append runs while its request starts; when it
// fails, the turn fails with its error and the draft keeps the queued
// text (it is not in the conversation).
func TestFailedQueuedAppendKeepsTheDraft(t *testing.T) {
	log := &writeLog{}
	f := spyQueueFixture(t, log, func(d *app.QueryDeps) {
		store := d.Store.(*mocks.ConversationStoreMock)
		appendEvents := store.AppendFunc
		store.AppendFunc = func(ctx context.Context, loc workspace.Location, id conversation.ID, evs ...conversation.Event) error {
			for _, e := range evs {
				if e.Author == conversation.AuthorQueued {
					return errors.New("disk full")
				}
			}
			return appendEvents(ctx, loc, id, evs...)
		}
	}, "kept on failure")
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 0
	res, evs, err := f.run(t, app.QueryInput{Message: "long", HasMessage: true})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want the failed append's", err)
	}
	for _, e := range evs {
		if e.Author == conversation.AuthorQueued {
			t.Fatalf("the conversation holds the queued request %+v after a failed append", e)
		}
	}
	d, derr := f.store.ReadDraft(context.Background(), f.loc(t), res.Conversation)
	if derr != nil || draft.Parse(d.Text).Query() != "kept on failure" {
		t.Fatalf("draft = %q, %v; want the queued reply kept", d.Text, derr)
	}
	if got := log.all(); slices.Contains(got, "delete draft") {
		t.Fatalf("writes %v removed the draft", got)
	}
}
