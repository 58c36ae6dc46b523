package demo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
)

// engine imitates the turn engine's bookkeeping (app.Query): it stores
// what a call produced, counts steps as turn.ProviderSteps does, and sends
// PriorCalls = stored steps + this run's calls that failed before output.
type engine struct {
	t       *testing.T
	p       *Provider
	history []llm.Message
	steps   int
	inStep  bool
	failed  int
}

func newEngine(t *testing.T, p *Provider) *engine { return &engine{t: t, p: p} }

func (e *engine) user(text string) {
	e.history = append(e.history, llm.Message{Role: llm.RoleUser, Text: text})
	e.inStep = false
}

func (e *engine) toolResults() {
	n := len(e.history)
	for _, c := range e.history[n-1].ToolCalls {
		e.history = append(e.history, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Text: "ok"})
	}
	e.inStep = false
}

// call makes one provider call with ctx and returns its text and error.
func (e *engine) callCtx(ctx context.Context) (string, error) {
	e.t.Helper()
	var rec llmtest.Recorder
	req := llm.Request{Messages: append([]llm.Message(nil), e.history...), PriorCalls: e.steps + e.failed}
	err := e.p.Stream(ctx, req, rec.Emit)
	text, calls := rec.Text(), rec.ToolCalls()
	switch {
	case text != "" || rec.Reasoning() != "" || len(calls) > 0:
		if !e.inStep {
			e.steps++
			e.inStep = true
		}
		if n := len(e.history); n > 0 && e.history[n-1].Role == llm.RoleAssistant {
			e.history[n-1].Text += text
			e.history[n-1].ToolCalls = append(e.history[n-1].ToolCalls, calls...)
		} else {
			e.history = append(e.history, llm.Message{Role: llm.RoleAssistant, Text: text, ToolCalls: calls})
		}
	case err != nil && ctx.Err() == nil:
		e.failed++
	}
	return text, err
}

func (e *engine) call() (string, error) {
	e.t.Helper()
	return e.callCtx(context.Background())
}

// expect makes one call and checks its text.
func (e *engine) expect(want string) {
	e.t.Helper()
	text, err := e.call()
	if err != nil || text != want {
		e.t.Fatalf("call with PriorCalls=%d: text %q, err %v; want %q", e.steps+e.failed, text, err, want)
	}
}

// expectErr makes one call and checks it fails with kind.
func (e *engine) expectErr(kind llm.ErrorKind) {
	e.t.Helper()
	_, err := e.call()
	var pe *llm.Error
	if !errors.As(err, &pe) || pe.Kind != kind {
		e.t.Fatalf("err = %v, want kind %v", err, kind)
	}
}

func TestResponsesFollowPriorCallsAcrossRuns(t *testing.T) {
	script := `{"responses": [{"events": [{"text": "one"}]}, {"events": [{"text": "two"}]}, {"events": [{"text": "three"}]}]}`
	path := writeScript(t, script)
	run := func() *Provider {
		p, err := New(Options{ScriptPath: path, Sleep: (&sleeper{}).Sleep})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	e := newEngine(t, run())
	e.user("a")
	e.expect("one")
	e.user("b")
	e.expect("two")

	// A new run of jp: a new Provider, the same stored conversation.
	e.p, e.failed = run(), 0
	e.user("c")
	e.expect("three")
	// Past the end: echo, with a chrome line that says so.
	e.user("hello")
	var rec llmtest.Recorder
	if err := e.p.Stream(context.Background(), llm.Request{Messages: e.history, PriorCalls: e.steps}, rec.Emit); err != nil {
		t.Fatal(err)
	}
	if rec.Text() != "You said: hello" || !strings.Contains(rec.Chrome(), "has 3 responses and this is call 4") {
		t.Errorf("fallback text %q chrome %q", rec.Text(), rec.Chrome())
	}
}

func TestEveryUsedCallAdvancesWithinARun(t *testing.T) {
	// The table of docs/demo-model.md plus the other kinds of calls that
	// leave no step of their own.
	p, _ := newScripted(t, `{"responses": [
	  {"events": [{"text": "A"}]},
	  {"events": [{"error": "transient", "message": "busy"}]},
	  {"events": [{"text": "B"}]},
	  {"events": [{"text": "The first"}, {"error": "transient", "message": "dropped"}]},
	  {"events": [{"text": " half."}]},
	  {"events": [{"usage": {"input_tokens": 1, "output_tokens": 0}}]},
	  {"events": [{"tool_call": {"name": "t"}}]},
	  {"events": [{"text": "after the tool"}]},
	  {"events": [{"error": "fatal"}]},
	  {"events": [{"text": "last"}]}
	]}`)
	e := newEngine(t, p)
	e.user("1")
	e.expect("A")
	e.user("2")
	e.expectErr(llm.ErrorTransient) // nothing stored; the engine counts it
	e.expect("B")                   // the retry
	e.user("3")
	if text, err := e.call(); !llm.IsTransient(err) || text != "The first" {
		t.Fatalf("dropped: %q %v", text, err)
	}
	e.expect(" half.") // the continuation joins the stored step
	if got := e.history[len(e.history)-1].Text; got != "The first half." {
		t.Errorf("merged step = %q", got)
	}
	e.user("4")
	e.expect("") // usage only: nothing stored
	e.user("5")
	if _, err := e.call(); err != nil || len(e.history[len(e.history)-1].ToolCalls) != 1 {
		t.Fatalf("tool call: %v", err)
	}
	if id := e.history[len(e.history)-1].ToolCalls[0].ID; id != "call_6_0" {
		t.Errorf("tool call ID = %q", id)
	}
	e.toolResults()
	e.expect("after the tool")
	e.user("6")
	e.expectErr(llm.ErrorFatal)
	e.user("7")
	e.expect("last")
}

func TestCancelledBeforeOutputReplays(t *testing.T) {
	p, _ := newScripted(t, `{"responses": [{"events": [{"text": "slow", "sleep_ms": 10}]}, {"events": [{"text": "second"}]}]}`)
	e := newEngine(t, p)
	e.user("x")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.callCtx(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	e.user("again")
	e.expect("slow")
	e.user("more")
	e.expect("second")
}

func TestCancelledAfterOutputAdvances(t *testing.T) {
	p, _ := newScripted(t, `{"responses": [{"events": [{"text": "a "}, {"text": "b", "sleep_ms": 10}]}, {"events": [{"text": "second"}]}]}`)
	e := newEngine(t, p)
	e.user("x")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rec llmtest.Recorder
	err := p.Stream(ctx, llm.Request{Messages: e.history}, func(ev llm.Event) error {
		if ev.Kind == llm.EventTextDelta {
			cancel() // Stop after the first word: "a " is stored
		}
		return rec.Emit(ev)
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	e.history = append(e.history, llm.Message{Role: llm.RoleAssistant, Text: rec.Text()})
	e.steps, e.inStep = 1, true
	e.user("next")
	e.expect("second")
}
