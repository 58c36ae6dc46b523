// Package llmcontract is the provider contract suite: one table of cases
// (plain text, reasoning, one tool call, two parallel tool calls, a tool
// result turned into the next request, usage, a length stop, an error
// inside the stream, a 429 with Retry-After, a 401 naming the key
// variable) that every HTTP provider adapter runs against replays of its
// own provider's wire format, the way adapters/storetest runs one suite
// against both stores.
//
// An adapter's test calls Run with a Target. The replays live in the
// adapter's testdata/contract/ directory, one file per case, all telling
// the same story so the expectations are shared (see the Expect*
// constants). A file may begin with "#" comment lines naming the API
// documentation it was built from; they end at the first blank line and
// are not served.
package llmcontract

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/llm/llmtest"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// What every replay says.
const (
	ExpectText          = "Hello! How can I help?"
	ExpectReasoning     = "Let me think."
	ExpectReasoningText = "Four."
	ExpectLengthText    = "Once upon a"
	ExpectErrorText     = "Par"
	ToolResultText      = "18°C and sunny"
	ToolResultCallID    = "call_1"
)

// ExpectCalls are the calls of parallel_tools; tool_call has the first.
var ExpectCalls = []llm.ToolCall{
	{Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
	{Name: "get_time", Arguments: json.RawMessage(`{"zone":"Europe/Paris"}`)},
}

// Target is one adapter under test.
type Target struct {
	// Name is the provider name the adapter reports in its errors.
	Name string
	// KeyEnv is the API key variable a 401 must name.
	KeyEnv string
	// New returns the adapter talking to baseURL (the replay server's
	// URL) with key as its API key.
	New func(t testing.TB, baseURL string, hc *http.Client, key string) ports.Provider
	// Ext is the replay files' extension ("sse", "ndjson").
	Ext string
	// Dir is the directory of the replays under testdata; empty is
	// "contract".
	Dir string
	// Stream wraps a replay body into the HTTP response the API sends.
	Stream func(body string) llmtest.Response
	// Usage is the usage the text replay reports.
	Usage llm.Usage
	// RateLimitBody and AuthBody are the JSON error bodies of a 429 and a
	// 401 in the provider's own shape.
	RateLimitBody, AuthBody string
	// NoCallIDs is set for APIs whose calls carry no ID (the adapter
	// makes one up).
	NoCallIDs bool
	// ReasoningSignature, when set, is the signature the reasoning replay
	// carries (Anthropic's signature, OpenAI's encrypted reasoning,
	// Gemini's thought signature).
	ReasoningSignature string
	// ToolResult checks, in the provider's terms, how the request that
	// follows a tool call carries the call and its result; the suite has
	// already checked that the result text and the call ID are in it.
	ToolResult func(t testing.TB, body map[string]any)
}

// Fixture reads testdata/contract/name without its comment header.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "contract", name))
	if err != nil {
		t.Fatal(err)
	}
	return StripHeader(string(b))
}

// StripHeader drops the leading "#" comment lines of a replay file and
// the blank line that ends them.
func StripHeader(s string) string {
	if !strings.HasPrefix(s, "#") {
		return s
	}
	for strings.HasPrefix(s, "#") {
		_, s, _ = strings.Cut(s, "\n")
	}
	return strings.TrimLeft(s, "\n")
}

func (tg Target) fixture(t testing.TB, name string) string {
	t.Helper()
	dir := tg.Dir
	if dir == "" {
		dir = "contract"
	}
	b, err := os.ReadFile(filepath.Join("testdata", dir, name+"."+tg.Ext))
	if err != nil {
		t.Fatal(err)
	}
	return StripHeader(string(b))
}

// errorBody reads the recorded error body testdata/<dir>/name.json.
func (tg Target) errorBody(t testing.TB, name string) string {
	t.Helper()
	dir := tg.Dir
	if dir == "" {
		dir = "contract"
	}
	b, err := os.ReadFile(filepath.Join("testdata", dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return StripHeader(string(b))
}

func (tg Target) run(t *testing.T, req llm.Request, responses ...llmtest.Response) (*llmtest.Recorder, *llmtest.Server, error) {
	t.Helper()
	srv := llmtest.NewServer(t, responses...)
	p := tg.New(t, srv.URL, srv.Client(), "test-key")
	var rec llmtest.Recorder
	err := p.Stream(context.Background(), req, rec.Emit)
	return &rec, srv, err
}

func userRequest(text string) llm.Request {
	return llm.Request{Model: "test-model", Messages: []llm.Message{{Role: llm.RoleUser, Text: text}}}
}

var weatherTools = []llm.Tool{
	{Name: "get_weather", Description: "Weather of a place", Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)},
	{Name: "get_time", Description: "Time in a zone", Parameters: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}},"required":["zone"]}`)},
}

// Run runs the contract cases against tg.
func Run(t *testing.T, tg Target) {
	t.Run("plain text", tg.casePlainText)
	t.Run("reasoning", tg.caseReasoning)
	t.Run("one tool call", tg.caseOneToolCall)
	t.Run("two parallel tool calls", tg.caseTwoParallelToolCalls)
	t.Run("tool result turned into the next request", tg.caseToolResultTurnedIntoTheNextRequest)
	t.Run("usage", tg.caseUsage)
	t.Run("length stop", tg.caseLengthStop)
	t.Run("error inside the stream", tg.caseErrorInsideTheStream)
	t.Run("429 with retry-after", tg.case429WithRetryAfter)
	t.Run("provider_overflow", tg.caseProviderOverflow)
	t.Run("401 naming the key variable", tg.case401NamingTheKeyVariable)
}

func (tg Target) casePlainText(t *testing.T) {
	t.Parallel()
	rec, srv, err := tg.run(t, userRequest("hi"), tg.Stream(tg.fixture(t, "text")))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Text() != ExpectText || rec.Reasoning() != "" {
		t.Errorf("text %q reasoning %q", rec.Text(), rec.Reasoning())
	}
	done := lastDone(t, rec)
	if done.Stop != llm.StopEnd {
		t.Errorf("stop = %q, want %q", done.Stop, llm.StopEnd)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
}

func (tg Target) caseReasoning(t *testing.T) {
	t.Parallel()
	req := userRequest("2+2?")
	req.Params.Reasoning = llm.Reasoning{Level: llm.ReasoningMedium}
	rec, _, err := tg.run(t, req, tg.Stream(tg.fixture(t, "reasoning")))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Reasoning() != ExpectReasoning || rec.Text() != ExpectReasoningText {
		t.Errorf("reasoning %q text %q", rec.Reasoning(), rec.Text())
	}
	if len(rec.Events) == 0 || rec.Events[0].Kind != llm.EventReasoningDelta {
		t.Errorf("the reasoning does not come first: %+v", rec.Events)
	}
	if tg.ReasoningSignature != "" {
		var sig strings.Builder
		for i, e := range rec.Events {
			if e.Kind == llm.EventReasoningSignature {
				sig.WriteString(e.Text)
				if i == 0 || rec.Events[i-1].Kind != llm.EventReasoningDelta && rec.Events[i-1].Kind != llm.EventReasoningSignature {
					t.Errorf("the signature does not follow the reasoning it signs: %+v", rec.Events)
				}
			}
		}
		if sig.String() != tg.ReasoningSignature {
			t.Errorf("signature %q, want %q", sig.String(), tg.ReasoningSignature)
		}
	}
	lastDone(t, rec)
}

func (tg Target) caseOneToolCall(t *testing.T) {
	t.Parallel()
	req := userRequest("weather in Paris?")
	req.Tools = weatherTools
	rec, _, err := tg.run(t, req, tg.Stream(tg.fixture(t, "tool_call")))
	if err != nil {
		t.Fatal(err)
	}
	checkCalls(t, rec.ToolCalls(), ExpectCalls[:1])
	if done := lastDone(t, rec); done.Stop != llm.StopToolUse {
		t.Errorf("stop = %q, want %q", done.Stop, llm.StopToolUse)
	}
}

func (tg Target) caseTwoParallelToolCalls(t *testing.T) {
	t.Parallel()
	req := userRequest("weather and time in Paris?")
	req.Tools = weatherTools
	rec, _, err := tg.run(t, req, tg.Stream(tg.fixture(t, "parallel_tools")))
	if err != nil {
		t.Fatal(err)
	}
	calls := rec.ToolCalls()
	checkCalls(t, calls, ExpectCalls)
	if len(calls) == 2 && calls[0].ID == calls[1].ID {
		t.Errorf("both calls have the ID %q", calls[0].ID)
	}
	if done := lastDone(t, rec); done.Stop != llm.StopToolUse {
		t.Errorf("stop = %q, want %q", done.Stop, llm.StopToolUse)
	}
}

func (tg Target) caseToolResultTurnedIntoTheNextRequest(t *testing.T) {
	t.Parallel()
	req := userRequest("weather in Paris?")
	req.Tools = weatherTools
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: ToolResultCallID, Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: ToolResultCallID, Text: ToolResultText},
	)
	rec, srv, err := tg.run(t, req, tg.Stream(tg.fixture(t, "text")))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Text() != ExpectText {
		t.Errorf("text %q", rec.Text())
	}
	body := srv.Requests()[0].JSON(t)
	strs := map[string]bool{}
	collectStrings(body, strs)
	if !containsSub(strs, ToolResultText) {
		t.Errorf("the tool result %q is not in the request: %s", ToolResultText, srv.Requests()[0].Body)
	}
	if !tg.NoCallIDs && !strs[ToolResultCallID] {
		t.Errorf("the call ID %q is not in the request: %s", ToolResultCallID, srv.Requests()[0].Body)
	}
	if !strs["get_weather"] {
		t.Errorf("the called tool is not in the request: %s", srv.Requests()[0].Body)
	}
	if tg.ToolResult != nil {
		tg.ToolResult(t, body)
	}
}

func (tg Target) caseUsage(t *testing.T) {
	t.Parallel()
	rec, _, err := tg.run(t, userRequest("hi"), tg.Stream(tg.fixture(t, "text")))
	if err != nil {
		t.Fatal(err)
	}
	us := rec.Usages()
	if len(us) != 1 || us[0] != tg.Usage || us[0].IsZero() {
		t.Errorf("usage = %+v, want one %+v", us, tg.Usage)
	}
	n := len(rec.Events)
	if n < 2 || rec.Events[n-2].Kind != llm.EventUsage {
		t.Errorf("usage does not come right before the end: %+v", rec.Events)
	}
}

func (tg Target) caseLengthStop(t *testing.T) {
	t.Parallel()
	req := userRequest("a long story")
	req.Params.MaxTokens = 16
	rec, _, err := tg.run(t, req, tg.Stream(tg.fixture(t, "length")))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Text() != ExpectLengthText {
		t.Errorf("text %q", rec.Text())
	}
	if done := lastDone(t, rec); done.Stop != llm.StopLength {
		t.Errorf("stop = %q, want %q", done.Stop, llm.StopLength)
	}
}

func (tg Target) caseErrorInsideTheStream(t *testing.T) {
	t.Parallel()
	rec, _, err := tg.run(t, userRequest("hi"), tg.Stream(tg.fixture(t, "stream_error")))
	e := llmtest.AsError(t, err)
	if e.Provider != tg.Name || e.Message == "" || strings.ContainsAny(e.Message, "\n\r") {
		t.Errorf("error = %+v", e)
	}
	if rec.Text() != ExpectErrorText {
		t.Errorf("the text before the error was lost: %q", rec.Text())
	}
	if rec.Count(llm.EventDone) != 0 {
		t.Error("EventDone after an error")
	}
}

func (tg Target) case429WithRetryAfter(t *testing.T) {
	t.Parallel()
	rec, srv, err := tg.run(t, userRequest("hi"),
		llmtest.JSONError(http.StatusTooManyRequests, tg.RateLimitBody, map[string]string{"Retry-After": "7"}))
	e := llmtest.AsError(t, err)
	if e.Kind != llm.ErrorTransient || e.Status != 429 || e.Retry != 7*time.Second || e.Provider != tg.Name || e.Message == "" {
		t.Errorf("error = %+v", e)
	}
	if len(rec.Events) != 0 {
		t.Errorf("events = %+v", rec.Events)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; the adapter must not retry on its own (the engine does)", n)
	}
}

func (tg Target) caseProviderOverflow(t *testing.T) {
	// The API's refusal of a request over the model's context window
	// (testdata/<dir>/overflow.json, as the API sends it) is told
	// apart from other bad requests: jp names jp conversation compact.
	t.Parallel()
	_, srv, err := tg.run(t, userRequest("hi"), llmtest.JSONError(http.StatusBadRequest, tg.errorBody(t, "overflow"), nil))
	e := llmtest.AsError(t, err)
	if !e.Overflow || e.Kind != llm.ErrorFatal || e.Status != 400 || e.Provider != tg.Name || e.Message == "" || !llm.IsOverflow(err) {
		t.Errorf("error = %+v; want a fatal overflow", e)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; an overflow is not retried", n)
	}
	_, _, err = tg.run(t, userRequest("hi"), llmtest.JSONError(http.StatusBadRequest, tg.AuthBody, nil))
	if llm.IsOverflow(err) {
		t.Errorf("another 400 (%v) taken for an overflow", err)
	}
}

func (tg Target) case401NamingTheKeyVariable(t *testing.T) {
	t.Parallel()
	_, _, err := tg.run(t, userRequest("hi"), llmtest.JSONError(http.StatusUnauthorized, tg.AuthBody, nil))
	e := llmtest.AsError(t, err)
	if e.Kind != llm.ErrorAuth || e.Status != 401 || !strings.Contains(e.Error(), tg.KeyEnv) {
		t.Errorf("error = %+v; want an auth error naming %s", e, tg.KeyEnv)
	}
	if strings.Contains(e.Error(), "test-key") {
		t.Errorf("the key leaked into the error: %v", e)
	}
}

func lastDone(t testing.TB, rec *llmtest.Recorder) llm.Event {
	t.Helper()
	if rec.Count(llm.EventDone) != 1 || rec.Last() != llm.EventDone {
		t.Fatalf("the events do not end with one EventDone: %+v", rec.Events)
	}
	return rec.Events[len(rec.Events)-1]
}

func checkCalls(t testing.TB, got, want []llm.ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("tool calls = %+v, want %d", got, len(want))
	}
	for i := range want {
		if got[i].ID == "" || got[i].Name != want[i].Name || !jsonEqual(got[i].Arguments, want[i].Arguments) {
			t.Errorf("call %d = %+v (args %s), want %s %s with an ID", i, got[i], got[i].Arguments, want[i].Name, want[i].Arguments)
		}
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

func collectStrings(v any, into map[string]bool) {
	switch v := v.(type) {
	case string:
		into[v] = true
		// Arguments are often a JSON string inside the JSON.
		var inner any
		if json.Unmarshal([]byte(v), &inner) == nil {
			collectStrings(inner, into)
		}
	case []any:
		for _, x := range v {
			collectStrings(x, into)
		}
	case map[string]any:
		for _, x := range v {
			collectStrings(x, into)
		}
	}
}

func containsSub(strs map[string]bool, sub string) bool {
	for s := range strs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Bench measures how fast the adapter turns a long stream into events:
// long(n) is a replay of n text deltas in the provider's wire format. It
// reports events/s.
func Bench(b *testing.B, tg Target, long func(n int) string) {
	const n = 2000
	body := long(n)
	responses := make([]llmtest.Response, 0, b.N)
	for range b.N {
		responses = append(responses, tg.Stream(body))
	}
	srv := llmtest.NewServer(b, responses...)
	p := tg.New(b, srv.URL, srv.Client(), "test-key")
	events := 0
	count := func(llm.Event) error { events++; return nil }
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for range b.N {
		if err := p.Stream(context.Background(), userRequest("hi"), count); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if events < b.N*n {
		b.Fatalf("%d events for %d runs of %d deltas", events, b.N, n)
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
