package demo

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sleeper records requested sleeps instead of sleeping.
type sleeper struct{ slept []time.Duration }

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.slept = append(s.slept, d)
	return ctx.Err()
}

func writeScript(t testing.TB, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func newScripted(t *testing.T, body string) (*Provider, *sleeper) {
	t.Helper()
	s := &sleeper{}
	p, err := New(Options{ScriptPath: writeScript(t, body), Sleep: s.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	return p, s
}

func user(text string) llm.Request {
	return llm.Request{Model: "scripted", Messages: []llm.Message{{Role: llm.RoleUser, Text: text}}}
}

func TestEcho(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rec llmtest.Recorder
	req := llm.Request{Model: "anything/at-all", Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "first"},
		{Role: llm.RoleAssistant, Text: "You said: first"},
		{Role: llm.RoleUser, Text: "hello  big\nworld"},
	}}
	if err := p.Stream(context.Background(), req, rec.Emit); err != nil {
		t.Fatal(err)
	}
	wantKinds := []llm.EventKind{llm.EventChrome, llm.EventTextDelta, llm.EventTextDelta, llm.EventTextDelta,
		llm.EventTextDelta, llm.EventTextDelta, llm.EventUsage, llm.EventDone}
	var kinds []llm.EventKind
	var words []string
	for _, e := range rec.Events {
		kinds = append(kinds, e.Kind)
		if e.Kind == llm.EventTextDelta {
			words = append(words, e.Text)
		}
	}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("kinds = %v", kinds)
	}
	if want := []string{"You ", "said: ", "hello  ", "big\n", "world"}; !reflect.DeepEqual(words, want) {
		t.Errorf("words = %q, want %q", words, want)
	}
	// One token per word: the history's 7 words in, the 5 words out.
	if u := rec.Usages(); len(u) != 1 || u[0] != (llm.Usage{InputTokens: 7, OutputTokens: 5}) {
		t.Errorf("usage = %+v", u)
	}
	if rec.Chrome() != EchoChrome || strings.Contains(EchoChrome, "assistant.model.id") {
		t.Errorf("chrome = %q", rec.Chrome())
	}
}

func TestEchoText(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []llm.Message
		want string
	}{
		{"no history", nil, "You said nothing."},
		{"blank", []llm.Message{{Role: llm.RoleUser, Text: "  "}}, "You said nothing."},
		{"after tool results", []llm.Message{{Role: llm.RoleUser, Text: "x"}, {Role: llm.RoleAssistant}, {Role: llm.RoleTool, Text: "r"}}, "Done."},
		{"continuation", []llm.Message{{Role: llm.RoleUser, Text: "x y"}, {Role: llm.RoleAssistant, Text: "You said"}}, "You said: x y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := EchoText(tc.msgs); got != tc.want {
				t.Errorf("EchoText = %q, want %q", got, tc.want)
			}
			if got := strings.Join(Words(tc.want), ""); got != tc.want {
				t.Errorf("Words do not concatenate back: %q", got)
			}
		})
	}
}

func TestScriptEventKinds(t *testing.T) {
	p, _ := newScripted(t, `{"responses": [
	  {"events": [
	    {"reasoning": "thinking..."},
	    {"text": "Let me look."},
	    {"tool_call": {"name": "fs_read", "arguments": {"path": "a.txt", "n": [1, 2]}}},
	    {"tool_call": {"name": "now"}},
	    {"usage": {"input_tokens": 10, "output_tokens": 3}}
	  ]}
	]}`)
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), user("go"), rec.Emit); err != nil {
		t.Fatal(err)
	}
	want := []llm.Event{
		{Kind: llm.EventChrome, Text: rec.Events[0].Text},
		{Kind: llm.EventReasoningDelta, Text: "thinking..."},
		{Kind: llm.EventTextDelta, Text: "Let me look."},
		{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: "call_0_0", Name: "fs_read", Arguments: json.RawMessage(`{"path":"a.txt","n":[1,2]}`)}},
		{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: "call_0_1", Name: "now", Arguments: json.RawMessage(`{}`)}},
		{Kind: llm.EventUsage, Usage: llm.Usage{InputTokens: 10, OutputTokens: 3}},
		{Kind: llm.EventDone},
	}
	if !reflect.DeepEqual(rec.Events, want) {
		t.Errorf("events:\n got %+v\nwant %+v", rec.Events, want)
	}
	if !strings.Contains(rec.Chrome(), "response 1 of 1") {
		t.Errorf("chrome = %q", rec.Chrome())
	}
}

func TestScriptErrors(t *testing.T) {
	p, _ := newScripted(t, `{"responses": [
	  {"events": [{"text": "partial"}, {"error": "transient", "message": "overloaded"}, {"text": "never"}]},
	  {"events": [{"error": "fatal", "message": "invalid request"}]},
	  {"events": [{"error": "auth"}]}
	]}`)
	ctx := context.Background()

	var rec llmtest.Recorder
	err := p.Stream(ctx, user("x"), rec.Emit)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ErrorTransient || e.Message != "overloaded" || e.Provider != "demo" {
		t.Fatalf("err = %#v", err)
	}
	if rec.Text() != "partial" || rec.Count(llm.EventDone) != 0 {
		t.Errorf("events before the error: %+v", rec.Events)
	}

	// The engine keeps "partial" (one stored step) and continues.
	cont := llm.Request{PriorCalls: 1, Messages: []llm.Message{{Role: llm.RoleUser, Text: "x"}, {Role: llm.RoleAssistant, Text: "partial"}}}
	err = p.Stream(ctx, cont, (&llmtest.Recorder{}).Emit)
	if !errors.As(err, &e) || e.Kind != llm.ErrorFatal || e.Message != "invalid request" {
		t.Fatalf("err = %#v", err)
	}
	// Response 2 emitted nothing: the engine counts it as a failed call.
	cont.PriorCalls = 2
	err = p.Stream(ctx, cont, (&llmtest.Recorder{}).Emit)
	if !errors.As(err, &e) || e.Kind != llm.ErrorAuth || e.Message != "scripted auth error" {
		t.Fatalf("err = %#v", err)
	}
	if llm.IsTransient(err) {
		t.Error("auth error reported transient")
	}
}

func TestRepeatAndSleep(t *testing.T) {
	p, s := newScripted(t, `{"responses": [{"events": [
	  {"text": "Hello"}, {"sleep_ms": 50}, {"text": " world"},
	  {"text": "word ", "repeat": 3, "sleep_ms": 25},
	  {"reasoning": "r", "repeat": 2},
	  {"text": "never", "repeat": 0, "sleep_ms": 99}
	]}]}`)
	var rec llmtest.Recorder
	if err := p.Stream(context.Background(), user("x"), rec.Emit); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Text(), "Hello worldword word word "; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if rec.Reasoning() != "rr" || rec.Count(llm.EventTextDelta) != 5 {
		t.Errorf("reasoning %q, %d text deltas", rec.Reasoning(), rec.Count(llm.EventTextDelta))
	}
	ms := time.Millisecond
	if want := []time.Duration{50 * ms, 25 * ms, 25 * ms, 25 * ms}; !reflect.DeepEqual(s.slept, want) {
		t.Errorf("slept %v, want %v", s.slept, want)
	}
}

func TestSleepHonoursCancellation(t *testing.T) {
	path := writeScript(t, `{"responses": [{"events": [{"text": "a "}, {"text": "slow", "sleep_ms": 3600000}]}]}`)
	p, err := New(Options{ScriptPath: path}) // the real sleeper
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rec llmtest.Recorder
	err = p.Stream(ctx, user("x"), func(e llm.Event) error {
		if e.Kind == llm.EventTextDelta {
			cancel()
		}
		return rec.Emit(e)
	})
	if !errors.Is(err, context.Canceled) || rec.Text() != "a " {
		t.Errorf("err = %v, text %q", err, rec.Text())
	}
}

func TestEmitErrorStops(t *testing.T) {
	p, _ := newScripted(t, `{"responses": [{"events": [{"text": "a", "repeat": 10}]}]}`)
	stop := errors.New("stop")
	n := 0
	err := p.Stream(context.Background(), user("x"), func(e llm.Event) error {
		if e.Kind == llm.EventTextDelta {
			n++
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err = %v after %d deltas", err, n)
	}
}

func TestMissingScriptFile(t *testing.T) {
	_, err := New(Options{ScriptPath: filepath.Join(t.TempDir(), "nope.json")})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "providers.demo.script") {
		t.Errorf("err = %v", err)
	}
}

func TestEchoWithSchemaAndAttachments(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rec llmtest.Recorder
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "title", Attachments: []llm.Attachment{{Name: "a.txt", Text: "x"}}}},
		Schema: []byte(`{"type":"object","properties":{"title":{"type":"string"},"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}}}`)}
	if err := p.Stream(context.Background(), req, rec.Emit); err != nil {
		t.Fatal(err)
	}
	want := `{"n":0,"tags":["You said: title (with 1 attachment: a.txt)"],"title":"You said: title (with 1 attachment: a.txt)"}`
	if rec.Text() != want {
		t.Errorf("text = %s, want %s", rec.Text(), want)
	}
}

// A summary request is answered with the demo summary, whatever the
// script says.
func TestSummaryRequest(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	err = p.Stream(context.Background(), llm.Request{Summary: true, Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "fix the parser\nin detail"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "fs_read_file"}}},
		{Role: llm.RoleTool, ToolCallID: "c", Text: "x"},
		{Role: llm.RoleUser, Text: "Summarize the conversation above."},
	}}, func(e llm.Event) error {
		if e.Kind == llm.EventTextDelta {
			got.WriteString(e.Text)
		}
		return nil
	})
	want := `Summary (demo model): the user asked "fix the parser"; 1 tool call(s) were made.`
	if err != nil || got.String() != want {
		t.Errorf("got %q, %v; want %q", got.String(), err, want)
	}
}
