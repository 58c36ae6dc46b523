package app_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// session runs Query.Session with the compose answers given, in order;
// it returns the requests the composer got.
func (f *fixture) session(t *testing.T, in app.QueryInput, force bool, answers ...composeAnswer) (app.QueryResult, []ports.ComposeRequest, error) {
	t.Helper()
	var reqs []ports.ComposeRequest
	f.prompter.ComposeFunc = func(_ context.Context, req ports.ComposeRequest) (string, error) {
		reqs = append(reqs, req)
		if len(answers) == 0 {
			t.Fatalf("unexpected compose %+v", req)
		}
		a := answers[0]
		answers = answers[1:]
		return a.text, a.err
	}
	in.LaunchDir = "/proj"
	res, err := f.query.Session(context.Background(), in, force)
	if len(answers) > 0 {
		t.Errorf("compose answers left: %v", answers)
	}
	return res, reqs, err
}

type composeAnswer struct {
	text string
	err  error
}

func userRequests(evs []conversation.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Type == conversation.EventTypeChatRequest {
			out = append(out, string(e.Author)+":"+e.Content)
		}
	}
	return out
}

// TestSessionSendsEachMessageAsAQueryTurn: a session sends its first
// message, then each composed one, as jp q turns of one conversation, and
// ends on an empty message; the composer is the session's, its header
// naming the conversation and its Up list holding the earlier messages.
func TestSessionSendsEachMessageAsAQueryTurn(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{text("one")}}, resp{events: []llm.Event{text("two")}}, resp{events: []llm.Event{text("three")}})
	res, reqs, err := f.session(t, app.QueryInput{Message: "first", HasMessage: true, New: true}, true,
		composeAnswer{text: "second"}, composeAnswer{text: "third"}, composeAnswer{text: "  "})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := f.store.Events(context.Background(), f.loc(t), res.Conversation)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := userRequests(evs), []string{"user:first", "user:second", "user:third"}; !slices.Equal(got, want) {
		t.Fatalf("requests = %q, want %q", got, want)
	}
	if len(reqs) != 3 {
		t.Fatalf("%d composes, want 3", len(reqs))
	}
	for _, r := range reqs {
		if !r.Session || r.Purpose != "query" || !strings.Contains(r.Header, " · "+string(res.Conversation)[:4]+" · ") || strings.Contains(r.Header, string(res.Conversation)) || len(r.Commands) == 0 {
			t.Errorf("compose request %+v: not the session composer with its header (the conversation's short ID)", r)
		}
	}
	if got := reqs[2].History; !slices.Equal(got, []string{"first", "second", "third"}) {
		t.Errorf("Up list of the third compose = %q", got)
	}
	if _, err := f.store.ReadDraft(context.Background(), f.loc(t), res.Conversation); err == nil {
		t.Error("a draft is left after every message was sent")
	}
}

// TestSessionNotForcedEndsUnlessLoopAlways: without --loop a jp q is one
// turn unless query.loop = "always".
func TestSessionNotForcedEndsUnlessLoopAlways(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{text("one")}}, resp{events: []llm.Event{text("two")}})
	if _, reqs, err := f.session(t, app.QueryInput{Message: "first", HasMessage: true, New: true}, false); err != nil || len(reqs) != 0 {
		t.Fatalf("if_pending: composes %d, err %v", len(reqs), err)
	}
	f.cfg.Query.Loop = 3 // config.LoopPolicyAlways
	if f.cfg.Query.Loop.String() != "always" {
		t.Fatalf("LoopPolicy 3 is %q", f.cfg.Query.Loop)
	}
	_, reqs, err := f.session(t, app.QueryInput{Message: "again", HasMessage: true, New: true}, false,
		composeAnswer{text: "next"}, composeAnswer{text: ""})
	if err != nil || len(reqs) != 2 {
		t.Fatalf("always: composes %d, err %v", len(reqs), err)
	}
}

// TestSessionExitPathsKeepDraft: text typed and not sent is the draft
// whichever way the composer is left (Ctrl-D, Ctrl-C twice, a shutdown,
// no terminal left), and the session ends without an error.
func TestSessionExitPathsKeepDraft(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"ctrl-d", ports.ErrCancelled},
		{"ctrl-c twice", ports.ErrInterrupted},
		{"sigterm", context.Canceled},
		{"unavailable", ports.ErrUnavailable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, resp{events: []llm.Event{text("one")}})
			res, _, err := f.session(t, app.QueryInput{Message: "first", HasMessage: true, New: true}, true,
				composeAnswer{text: "unsent words", err: tt.err})
			if err != nil && tt.err != context.Canceled {
				t.Fatal(err)
			}
			d, derr := f.store.ReadDraft(context.Background(), f.loc(t), res.Conversation)
			if derr != nil || draft.Parse(d.Text).Query() != "unsent words" {
				t.Fatalf("draft = %q, %v", d.Text, derr)
			}
		})
	}
}

// TestSessionAutosaveWritesTheDraft: the composer's autosave writes the
// text typed so far as the draft (what a SIGKILL leaves).
func TestSessionAutosaveWritesTheDraft(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{text("one")}})
	var res app.QueryResult
	f.prompter.ComposeFunc = func(_ context.Context, req ports.ComposeRequest) (string, error) {
		if req.Autosave == nil {
			t.Fatal("no autosave for a conversation that exists")
		}
		req.Autosave("half typed")
		d, err := f.store.ReadDraft(context.Background(), f.loc(t), res.Conversation)
		if err != nil || draft.Parse(d.Text).Query() != "half typed" {
			t.Fatalf("draft while typing = %q, %v", d.Text, err)
		}
		// A /cfg line may be a secret being typed: never on disk.
		req.Autosave("/cfg providers.openai.api_key=sk-half")
		d, err = f.store.ReadDraft(context.Background(), f.loc(t), res.Conversation)
		if err != nil || strings.Contains(d.Text, "sk-half") {
			t.Fatalf("a /cfg line was autosaved: draft = %q, %v", d.Text, err)
		}
		return "", nil
	}
	var err error
	if res, err = f.query.Run(context.Background(), app.QueryInput{LaunchDir: "/proj", Message: "first", HasMessage: true, New: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.query.Session(context.Background(), app.QueryInput{LaunchDir: "/proj", Conversation: string(res.Conversation)}, true); err != nil {
		t.Fatal(err)
	}
}

// TestSessionSlashCommands: an unknown command is one line and its text
// stays in the composer; /cfg is accepted; /new
// sends the next message in a new conversation; /quit ends.
func TestSessionSlashCommands(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{text("one")}}, resp{events: []llm.Event{text("two")}})
	res, reqs, err := f.session(t, app.QueryInput{Message: "first", HasMessage: true, New: true}, true,
		composeAnswer{text: "/bogus thing"},
		composeAnswer{text: "/cfg assistant.system_prompt=terse"},
		composeAnswer{text: "/new"},
		composeAnswer{text: "in another"},
		composeAnswer{text: "/quit"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.printer.text(ports.ChannelError); !strings.Contains(got, "Unknown command /bogus") {
		t.Errorf("error channel = %q", got)
	}
	if reqs[1].Initial != "/bogus thing" {
		t.Errorf("after an unknown command the composer holds %q", reqs[1].Initial)
	}
	if !strings.Contains(reqs[3].Header, "new conversation") {
		t.Errorf("header after /new = %q", reqs[3].Header)
	}
	list, err := f.store.List(context.Background(), f.loc(t))
	if err != nil || len(list) != 2 {
		t.Fatalf("conversations: %d, %v (want the first and the one /new started)", len(list), err)
	}
	var first conversation.ID
	for _, s := range list {
		if s.ID != res.Conversation {
			first = s.ID
		}
	}
	// (The fixture's configuration loader records no command line: the
	// config_delta of /cfg and /model is checked end to end, in
	// session_headless.txtar and the tmux tests.)
	evs, _ := f.store.Events(context.Background(), f.loc(t), first)
	if got := userRequests(evs); !slices.Equal(got, []string{"user:first"}) {
		t.Errorf("first conversation's requests = %q", got)
	}
}

// listCounter counts ConversationStore.List calls.
type listCounter struct {
	ports.ConversationStore
	mu sync.Mutex
	n  int
}

func (c *listCounter) List(ctx context.Context, loc workspace.Location) ([]conversation.Summary, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.ConversationStore.List(ctx, loc)
}

// The composer's header names the conversation by its short ID, which
// needs every conversation's metadata: a session lists them once per
// conversation it switches to, not once per message.
func TestSessionListsConversationsOncePerConversation(t *testing.T) {
	lc := &listCounter{}
	f := newFixtureWith(t, func(d *app.QueryDeps) { lc.ConversationStore = d.Store; d.Store = lc },
		resp{events: []llm.Event{text("one")}}, resp{events: []llm.Event{text("two")}}, resp{events: []llm.Event{text("three")}}, resp{events: []llm.Event{text("four")}})
	_, reqs, err := f.session(t, app.QueryInput{Message: "first", HasMessage: true, New: true}, true,
		composeAnswer{text: "second"}, composeAnswer{text: "third"}, composeAnswer{text: "fourth"}, composeAnswer{text: ""})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 4 {
		t.Fatalf("%d composes, want 4", len(reqs))
	}
	// Each of the 4 turns' runs lists once as it ends (the sweep of
	// expired conversations); the header adds one list in all.
	if want := 4 + 1; lc.n != want {
		t.Fatalf("List called %d times over 4 turns and %d composes of one conversation, want %d", lc.n, len(reqs), want)
	}
}
