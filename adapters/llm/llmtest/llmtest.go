// Package llmtest holds test helpers shared by the provider adapters in
// adapters/llm: a Recorder for emitted events, an httptest Server that
// replays canned HTTP responses (SSE streams, error statuses, cut
// connections) and records the requests it received, and small
// assertions (Fixture, AsError, AssertJSON).
package llmtest

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
)

// Fixture returns the contents of testdata/name.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// AsError returns err as an *llm.Error, failing the test if it is not one.
func AsError(t testing.TB, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	return e
}

// AssertJSON checks that got (a decoded request body part) encodes as the
// JSON want, whatever the whitespace and key order of want.
func AssertJSON(t testing.TB, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON for %s: %v", what, err)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}

// Recorder collects the events a provider emits.
type Recorder struct {
	Events []llm.Event
}

// Emit records e; pass it as the emit callback of Stream.
func (r *Recorder) Emit(e llm.Event) error {
	r.Events = append(r.Events, e)
	return nil
}

// Text concatenates the text deltas.
func (r *Recorder) Text() string { return r.join(llm.EventTextDelta) }

// Reasoning concatenates the reasoning deltas.
func (r *Recorder) Reasoning() string { return r.join(llm.EventReasoningDelta) }

// Chrome concatenates the chrome lines, one per line.
func (r *Recorder) Chrome() string {
	var lines []string
	for _, e := range r.Events {
		if e.Kind == llm.EventChrome {
			lines = append(lines, e.Text)
		}
	}
	return strings.Join(lines, "\n")
}

func (r *Recorder) join(kind llm.EventKind) string {
	var b strings.Builder
	for _, e := range r.Events {
		if e.Kind == kind {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the emitted tool calls in order.
func (r *Recorder) ToolCalls() []llm.ToolCall {
	var calls []llm.ToolCall
	for _, e := range r.Events {
		if e.Kind == llm.EventToolCall {
			calls = append(calls, e.ToolCall)
		}
	}
	return calls
}

// Usages returns the emitted usage events in order.
func (r *Recorder) Usages() []llm.Usage {
	var us []llm.Usage
	for _, e := range r.Events {
		if e.Kind == llm.EventUsage {
			us = append(us, e.Usage)
		}
	}
	return us
}

// Count returns how many events of kind were emitted.
func (r *Recorder) Count(kind llm.EventKind) int {
	n := 0
	for _, e := range r.Events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// Last returns the kind of the last event, EventUnknown if there is none.
func (r *Recorder) Last() llm.EventKind {
	if len(r.Events) == 0 {
		return llm.EventUnknown
	}
	return r.Events[len(r.Events)-1].Kind
}

// Response is one canned HTTP response of a Server.
type Response struct {
	Status int               // 200 when zero
	Header map[string]string // extra headers; SSE bodies get text/event-stream
	Body   string
	// Cut makes the server write Body, flush it, and then abort the
	// connection without finishing the response (a dropped stream).
	Cut bool
	// Hold makes the server write Body, flush it, and then wait until the
	// client goes away (for cancellation tests).
	Hold bool
}

// SSE returns a 200 response with an SSE body.
func SSE(body string) Response {
	return Response{Status: http.StatusOK, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: body}
}

// JSONError returns an error response with a JSON body.
func JSONError(status int, body string, header map[string]string) Response {
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	return Response{Status: status, Header: h, Body: body}
}

// Request is what a Server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the request body into a generic value.
func (r Request) JSON(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, r.Body)
	}
	return v
}

// Server replays Responses in order, one per request, and fails the test
// on a request beyond them. It is closed by t.Cleanup.
type Server struct {
	*httptest.Server
	t         testing.TB
	mu        sync.Mutex
	responses []Response
	requests  []Request
}

// NewServer starts a Server with the given responses.
func NewServer(t testing.TB, responses ...Response) *Server {
	t.Helper()
	s := &Server{t: t, responses: responses}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	if len(s.responses) == 0 {
		s.mu.Unlock()
		s.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"error":{"message":"no canned response"}}`, http.StatusTeapot)
		return
	}
	resp := s.responses[0]
	s.responses = s.responses[1:]
	s.mu.Unlock()

	for k, v := range resp.Header {
		w.Header().Set(k, v)
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, resp.Body)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	switch {
	case resp.Cut:
		// Abort: the server closes the connection without the final chunk,
		// so the client sees an unexpected EOF.
		panic(http.ErrAbortHandler)
	case resp.Hold:
		<-r.Context().Done()
	}
}

// CompactionScenarios are the Rust jp's per-provider compaction request
// snapshots' scenarios (domain/turn/testdata/compaction).
var CompactionScenarios = []string{"baseline", "reasoning_strip", "tool_strip_request", "tool_strip_response",
	"tool_strip_both", "tool_omit", "summary", "summary_overlap"}

// CompactionHistory is the history sent to a provider for the
// conversation of domain/turn/testdata/compaction with the overlays of
// scenario (called from a package of adapters/llm/<provider>).
func CompactionHistory(t testing.TB, scenario string) []llm.Message {
	t.Helper()
	var evs []conversation.Event
	for _, name := range []string{"base", scenario} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "domain", "turn", "testdata", "compaction", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		part, err := eventcodec.DecodeEvents(b)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, part...)
	}
	return turn.History(evs)
}

// AssertGolden compares got (JSON) with testdata/name field by field
// (decoded, so key order and white space do not matter); with
// JP_UPDATE_GOLDEN=1 it writes the file instead.
func AssertGolden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("JP_UPDATE_GOLDEN") == "1" {
		var v any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	var v any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatal(err)
	}
	AssertJSON(t, name, v, Fixture(t, name))
}
