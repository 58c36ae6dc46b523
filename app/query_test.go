package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/adapters/terminal"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clockFrom is a clock that moves one millisecond per reading, from t.
func clockFrom(t time.Time) *mocks.ClockMock {
	var mu sync.Mutex
	return &mocks.ClockMock{NowFunc: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Millisecond)
		return t
	}}
}

// counterIDs gives ev1, ev2, ... in call order.
func counterIDs() *mocks.IDGeneratorMock {
	var n atomic.Int64
	return &mocks.IDGeneratorMock{NewIDFunc: func() string { return fmt.Sprintf("ev%d", n.Add(1)) }}
}

// resp is one provider call's answer: a list of events, optionally
// ending in an error.
type resp struct {
	events []llm.Event
	err    error
}

// scriptProvider plays one response per call (then "fallback"); the
// mock records each call's request.
func scriptProvider(resps ...resp) *mocks.ProviderMock {
	var n atomic.Int64
	return &mocks.ProviderMock{StreamFunc: func(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
		i := int(n.Add(1)) - 1
		if i >= len(resps) {
			return emit(llm.Event{Kind: llm.EventTextDelta, Text: "fallback"})
		}
		for _, ev := range resps[i].events {
			if err := emit(ev); err != nil {
				return err
			}
		}
		return resps[i].err
	}}
}

// requests are the requests the provider was called with, in order.
func requests(p *mocks.ProviderMock) []llm.Request {
	var out []llm.Request
	for _, c := range p.StreamCalls() {
		out = append(out, c.Req)
	}
	return out
}

// recordingPrinter is the Printer mock, keeping everything written per
// channel (EndBlock writes a newline); Usage reports are its UsageCalls.
type recordingPrinter struct {
	*mocks.PrinterMock
	mu  sync.Mutex
	out map[ports.Channel]*strings.Builder
	// log is the order of waits, their ends and content: "wait LABEL",
	// "stop LABEL", "content".
	log []string
}

func newPrinter() *recordingPrinter {
	p := &recordingPrinter{out: map[ports.Channel]*strings.Builder{}}
	write := func(ch ports.Channel, text string) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.out[ch] == nil {
			p.out[ch] = &strings.Builder{}
		}
		p.out[ch].WriteString(text)
		if ch == ports.ChannelContent {
			p.log = append(p.log, "content")
		}
	}
	p.PrinterMock = &mocks.PrinterMock{
		WriteFunc:    write,
		EndBlockFunc: func(ch ports.Channel) { write(ch, "\n") },
		UsageFunc:    func(ports.UsageReport) {},
		WaitFunc: func(label string) func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.log = append(p.log, "wait "+label)
			var once sync.Once
			return func() {
				once.Do(func() {
					p.mu.Lock()
					defer p.mu.Unlock()
					p.log = append(p.log, "stop "+label)
				})
			}
		},
		FlushFunc:   func() error { return nil },
		SuspendFunc: func() func() { return func() {} },
	}
	return p
}

func (p *recordingPrinter) text(ch ports.Channel) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.out[ch] == nil {
		return ""
	}
	return p.out[ch].String()
}

// usage are the usage reports printed.
func (p *recordingPrinter) usage() []ports.UsageReport {
	var out []ports.UsageReport
	for _, c := range p.UsageCalls() {
		out = append(out, c.R)
	}
	return out
}

// echoTools is a tool source with one tool, fs_read, whose result names
// its arguments.
func echoTools() *mocks.ToolSourceMock {
	return &mocks.ToolSourceMock{
		OpenFunc: func(context.Context, config.Config, string) (ports.ToolServer, func(), error) {
			return &mocks.ToolServerMock{
				ToolsFunc: func(ctx context.Context) ([]llm.Tool, error) {
					return []llm.Tool{{Name: "fs_read", Parameters: json.RawMessage(`{"type":"object"}`)}}, nil
				},
				CallFunc: func(ctx context.Context, name string, args json.RawMessage) (ports.ToolResult, error) {
					return ports.ToolResult{Content: "contents of " + string(args)}, nil
				},
			}, func() {}, nil
		},
	}
}

type fixture struct {
	store    *memstore.Store
	provider *mocks.ProviderMock
	real     ports.Provider // when set, used instead of provider
	printer  *recordingPrinter
	prompter *mocks.PrompterMock
	answers  []string
	ticks    []time.Duration
	router   *terminal.Interrupts
	query    *app.Query
	cfg      config.Config
	// configFiles records "always for this workspace" writes.
	configFiles *mocks.ConfigEditorMock
}

func newFixture(t *testing.T, resps ...resp) *fixture {
	t.Helper()
	return newFixtureWith(t, nil, resps...)
}

// newFixtureWith is newFixture with deps changed by with before the
// query use case is built.
func newFixtureWith(t *testing.T, with func(*app.QueryDeps), resps ...resp) *fixture {
	t.Helper()
	f := &fixture{provider: scriptProvider(resps...), printer: newPrinter(), cfg: config.Default(),
		configFiles: &mocks.ConfigEditorMock{SetStringFunc: func(context.Context, string, []string, string, string) error { return nil }}}
	// Generated titles have their own tests (titles_test.go): here they
	// would add a provider call to every first turn.
	f.cfg.Conversation.Title.Model = config.TitleModelNone
	f.store = memstore.New(clockFrom(time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)))
	f.prompter = &mocks.PrompterMock{
		InteractiveFunc: func() bool { return true },
		AskFunc: func(ctx context.Context, q ports.Question) (ports.Answer, error) {
			if len(f.answers) == 0 {
				t.Fatalf("unexpected question %q", q.Message)
			}
			a := f.answers[0]
			f.answers = f.answers[1:]
			return ports.Answer{Text: a}, nil
		},
	}
	ws := app.NewWorkspaces(f.store, f.store)
	if _, err := ws.Init(context.Background(), "/proj"); err != nil {
		t.Fatal(err)
	}
	f.router = terminal.NewInterrupts(terminal.InterruptOptions{
		Countdown: true,
		Exit:      func(code int) { t.Errorf("exit %d", code) },
		Restore:   func() {},
	})
	deps := app.QueryDeps{
		Store: f.store, Drafts: f.store, Locker: f.store,
		Config: &mocks.ConfigLoaderMock{LoadFunc: func(ctx context.Context, src ports.ConfigSource) (config.Resolved, error) {
			return config.Resolved{Config: f.cfg}, nil
		}},
		Providers: &mocks.ProviderFactoryMock{
			ProviderFunc: func(ctx context.Context, cfg config.Config, model llm.ModelID) (ports.Provider, error) {
				if f.real != nil {
					return f.real, nil
				}
				return f.provider, nil
			},
			HasKeyFunc: func(config.Config, string) bool { return false },
		},
		Tools:   echoTools(),
		Printer: f.printer, Prompter: f.prompter, ConfigFiles: f.configFiles,
		Clock:      clockFrom(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)),
		IDs:        counterIDs(),
		Interrupts: f.router,
		Timers: &mocks.TimersMock{AfterFunc: func(d time.Duration) <-chan time.Time {
			f.ticks = append(f.ticks, d)
			c := make(chan time.Time, 1)
			c <- time.Time{}
			return c
		}},
	}
	if with != nil {
		with(&deps)
	}
	f.query = app.NewQuery(ws, deps)
	return f
}

func (f *fixture) run(t *testing.T, in app.QueryInput) (app.QueryResult, []conversation.Event, error) {
	t.Helper()
	in.LaunchDir = "/proj"
	res, err := f.query.Run(context.Background(), in)
	if res.Conversation == "" {
		return res, nil, err
	}
	found, ferr := f.store.Find(context.Background(), "/proj")
	if ferr != nil {
		t.Fatal(ferr)
	}
	loc := workspace.Location{ID: found.ID, Root: found.Root}
	evs, eerr := f.store.Events(context.Background(), loc, res.Conversation)
	if eerr != nil {
		t.Fatal(eerr)
	}
	if verr := conversation.Validate(evs); verr != nil {
		t.Fatalf("stored events break invariants: %v", verr)
	}
	return res, evs, err
}

func types(evs []conversation.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.Type.String())
	}
	return strings.Join(s, ",")
}

func text(s string) llm.Event { return llm.Event{Kind: llm.EventTextDelta, Text: s} }
func toolCall(id string) llm.Event {
	return llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: id, Name: "fs_read", Arguments: json.RawMessage(`{"path":"a.txt"}`)}}
}

func TestQueryRecordsATurn(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{text("You said: "), text("hello")}})
	res, evs, err := f.run(t, app.QueryInput{Message: "hello", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.End != turn.EndCompleted {
		t.Fatalf("end = %v", res.End)
	}
	if got := types(evs); got != "turn_start,chat_request,chat_response,turn_end" {
		t.Fatalf("events = %s", got)
	}
	if evs[0].Root != "/proj" || evs[1].Author != "user" || evs[2].Message != "You said: hello" {
		t.Fatalf("events = %+v", evs)
	}
	if f.printer.text(ports.ChannelContent) != "You said: hello\n" {
		t.Fatalf("content = %q", f.printer.text(ports.ChannelContent))
	}
}

// TestSystemPromptReachesEveryRequest: assistant.system_prompt is sent
// with every provider call of a turn (before and after a tool call), and
// is never stored in the conversation.
func TestSystemPromptReachesEveryRequest(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("done")}})
	f.cfg.Assistant.SystemPrompt = "You work on the jp repository."
	f.answers = []string{"y"}
	_, evs, err := f.run(t, app.QueryInput{Message: "read it", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	calls := requests(f.provider)
	if len(calls) != 2 {
		t.Fatalf("%d provider calls", len(calls))
	}
	for i, c := range calls {
		if c.System != "You work on the jp repository." {
			t.Errorf("call %d system = %q", i, c.System)
		}
	}
	for _, e := range evs {
		if strings.Contains(e.Content+e.Message, "jp repository") {
			t.Errorf("the system prompt was stored: %+v", e)
		}
	}
}

// TestSystemPromptSectionsAreComposed: assistant.system_prompt_sections
// reach the provider after the system prompt, ordered by position, tagged
// ones wrapped; and --model resolves an alias.
func TestSystemPromptSectionsAreComposed(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{text("done")}})
	f.cfg.Assistant.SystemPrompt = "Base."
	f.cfg.Assistant.SystemPromptSections = []config.PromptSection{{Content: "Last.", Position: 9}, {Content: "Rules.", Tag: "rules"}}
	if _, _, err := f.run(t, app.QueryInput{Message: "hi", HasMessage: true}); err != nil {
		t.Fatal(err)
	}
	calls := requests(f.provider)
	if len(calls) != 1 || calls[0].System != "Base.\n\n<rules>\nRules.\n</rules>\n\nLast." {
		t.Errorf("calls = %+v", calls)
	}
}

func TestRunScopedApprovalCoversTheSecondCall(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answers []string
		asked   int
	}{
		{"Y remembers for the run", []string{"Y"}, 1},
		{"y asks again", []string{"y", "y"}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t,
				resp{events: []llm.Event{toolCall("c1")}},
				resp{events: []llm.Event{toolCall("c2")}},
				resp{events: []llm.Event{text("both read")}},
			)
			f.answers = tt.answers
			_, evs, err := f.run(t, app.QueryInput{Message: "read twice", HasMessage: true})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(f.prompter.AskCalls()); n != tt.asked {
				t.Fatalf("asked %d times, want %d", n, tt.asked)
			}
			q := f.prompter.AskCalls()[0].Q
			if q.Topic != "tool_permission:fs_read" || len(q.Options) != 7 || q.Options[1].Label != "run, remember for this run" {
				t.Fatalf("permission question = %+v", q)
			}
			want := "turn_start,chat_request,tool_call_request,tool_call_response,tool_call_request,tool_call_response,chat_response,turn_end"
			if got := types(evs); got != want {
				t.Fatalf("events = %s", got)
			}
			if evs[3].IsError || !strings.Contains(evs[3].Content, "a.txt") {
				t.Fatalf("first result = %+v", evs[3])
			}
		})
	}
}

func TestSkipUsesCancellationResponse(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("ok")}})
	f.answers = []string{"n"}
	_, evs, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if !evs[3].IsError || evs[3].Content != f.cfg.Conversation.Tools.Defaults.CancellationResponse {
		t.Fatalf("skipped call result = %+v", evs[3])
	}
}

// A retried call keeps one copy: the failed attempt's partial output is
// not stored, and the retry sends the same history (no partial assistant
// message as a prefill).
func TestTransientErrorRetriesKeepOneCopy(t *testing.T) {
	f := newFixture(t,
		resp{events: []llm.Event{text("partial ")}, err: &llm.Error{Kind: llm.ErrorTransient, Provider: "p", Status: 503}},
		resp{err: &llm.Error{Kind: llm.ErrorTransient, Provider: "p", Status: 429}},
		resp{events: []llm.Event{text("rest")}},
	)
	_, evs, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := types(evs); got != "turn_start,chat_request,chat_response,turn_end" {
		t.Fatalf("events = %s", got)
	}
	if evs[2].Message != "rest" {
		t.Fatalf("message = %q", evs[2].Message)
	}
	if len(f.ticks) != 2 || f.ticks[1] <= f.ticks[0] {
		t.Fatalf("backoff = %v", f.ticks)
	}
	last := requests(f.provider)[2].Messages
	if len(last) != 1 || last[0].Role != llm.RoleUser {
		t.Fatalf("retry history = %+v", last)
	}
}

func TestFatalErrorEndsTurnWithError(t *testing.T) {
	f := newFixture(t, resp{err: &llm.Error{Kind: llm.ErrorAuth, Provider: "openai", Status: 401, Message: "bad key"}})
	_, evs, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	var ue *app.UserError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("err = %v", err)
	}
	if len(f.ticks) != 0 {
		t.Fatal("an auth error must not be retried")
	}
	if got := types(evs); got != "turn_start,chat_request,turn_end" || evs[2].Outcome != conversation.OutcomeError {
		t.Fatalf("events = %s %+v", got, evs[len(evs)-1])
	}
}

func TestSecondQueryContinuesActiveConversation(t *testing.T) {
	f := newFixture(t)
	r1, _, err := f.run(t, app.QueryInput{Message: "one", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	r2, evs, err := f.run(t, app.QueryInput{Message: "two", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Conversation != r2.Conversation || len(evs) != 8 {
		t.Fatalf("second query went to %s (first %s), %d events", r2.Conversation, r1.Conversation, len(evs))
	}
	r3, _, err := f.run(t, app.QueryInput{Message: "three", HasMessage: true, New: true})
	if err != nil || r3.Conversation == r1.Conversation {
		t.Fatalf("--new reused %s: %v", r3.Conversation, err)
	}
}
