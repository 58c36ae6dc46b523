// Package apierr turns HTTP outcomes of a provider call into *llm.Error
// values, the same way for every HTTP provider adapter: 429, 5xx,
// connection failures and dropped streams are transient; 401 and 403 are
// auth errors naming the API key variable; other 4xx are fatal (408 Request
// Timeout counts as transient).
package apierr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/llm"
)

// Key names the credential of a provider, for auth error messages.
type Key struct {
	Env string // the environment variable it comes from, "" if unknown
	Set bool   // whether a key was configured at all
}

// hint says what to do about a refused key.
func (k Key) hint() string {
	switch {
	case k.Env != "" && !k.Set:
		return fmt.Sprintf("%s is not set; set it to your API key", k.Env)
	case k.Env != "":
		return fmt.Sprintf("check the API key in %s", k.Env)
	case !k.Set:
		return "no API key is configured"
	}
	return "check the configured API key"
}

// FromStatus classifies a non-2xx HTTP response. message is the provider's
// own message, if the body had one.
func FromStatus(provider string, status int, header http.Header, message string, key Key, now time.Time) *llm.Error {
	e := &llm.Error{Provider: provider, Status: status, Message: OneLine(message)}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = llm.ErrorAuth
		if e.Message == "" {
			e.Message = http.StatusText(status)
		}
		e.Message += " (" + key.hint() + ")"
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500:
		e.Kind = llm.ErrorTransient
		e.Retry = RetryAfter(header, now)
	default:
		e.Kind = llm.ErrorFatal
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	if (status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge) && Overflow(message) {
		e.Overflow = true
	}
	return e
}

// FromResponse classifies a non-2xx response, reading at most 64 KiB of
// its body for the provider's message. It does not close the body.
func FromResponse(provider string, res *http.Response, key Key, now time.Time) *llm.Error {
	var body []byte
	if res.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(res.Body, 64<<10))
	}
	e := FromStatus(provider, res.StatusCode, res.Header, MessageFromBody(body), key, now)
	if e.Kind == llm.ErrorFatal && Overflow(string(body)) {
		// The error's code says it when its message does not
		// ("code": "context_length_exceeded").
		e.Overflow = true
	}
	return e
}

// overflowSigns are what the providers' errors for a request over the
// model's context window say, lower-cased: Anthropic's message, OpenAI's
// code and its Chat Completions and Responses messages, Gemini's message,
// Ollama's and llama.cpp's.
var overflowSigns = []string{
	"prompt is too long",                           // Anthropic
	"context_length_exceeded",                      // OpenAI's code
	"maximum context length",                       // OpenAI Chat Completions
	"exceeds the context window",                   // OpenAI Responses
	"exceeds the maximum number of tokens allowed", // Gemini
	"input length exceeds the context length",      // Ollama
	"exceed_context_size_error",                    // llama.cpp's type
	"exceeds the available context size",           // llama.cpp
}

// Overflow reports whether a provider's error text (a message or a whole
// error body) says the request exceeds the model's context window.
func Overflow(text string) bool {
	if text == "" {
		return false
	}
	text = strings.ToLower(text)
	for _, s := range overflowSigns {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// MessageFromBody finds the human-readable message in an error body:
// {"error":{"message":...}} (OpenAI, Anthropic), {"error":"..."} (Ollama,
// llama.cpp), {"message":...} or {"detail":...}; else the body itself when
// it is short plain text.
func MessageFromBody(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		var inner struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case v.Message != "":
			return v.Message
		case v.Detail != nil:
			if d, ok := v.Detail.(string); ok {
				return d
			}
			b, _ := json.Marshal(v.Detail)
			return string(b)
		}
		return string(body)
	}
	if bytes.HasPrefix(body, []byte("<")) { // an HTML error page says nothing useful
		return ""
	}
	return string(body)
}

// Transport classifies an error that is not an HTTP status: ctx's own error
// when ctx is done, otherwise a transient connection failure.
func Transport(ctx context.Context, provider string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// A request timeout of the HTTP client, not the caller's ctx.
		return &llm.Error{Kind: llm.ErrorTransient, Provider: provider, Message: "request timed out: " + OneLine(err.Error())}
	}
	return &llm.Error{Kind: llm.ErrorTransient, Provider: provider, Message: "connection failed: " + OneLine(err.Error())}
}

// Dropped is the error for a stream that ended without its terminal
// marker. The events already emitted stand.
func Dropped(provider string, cause error) *llm.Error {
	msg := "the response stream ended early"
	if cause != nil {
		msg += ": " + OneLine(cause.Error())
	}
	return &llm.Error{Kind: llm.ErrorTransient, Provider: provider, Message: msg}
}

// Fatal is a non-retryable error with a message.
func Fatal(provider, format string, args ...any) *llm.Error {
	return &llm.Error{Kind: llm.ErrorFatal, Provider: provider, Message: OneLine(fmt.Sprintf(format, args...))}
}

// ToolArguments checks the assembled arguments of a streamed tool call:
// blank counts as {}, anything else must be a JSON object (a fatal error
// naming the tool otherwise). what is the API's word for them, for the
// message ("arguments", "input").
func ToolArguments(provider, tool, what, args string) (json.RawMessage, error) {
	args = strings.TrimSpace(args)
	if args == "" {
		return json.RawMessage("{}"), nil
	}
	if args[0] != '{' || !json.Valid([]byte(args)) {
		return nil, Fatal(provider, "the model sent invalid %s for tool %s (not a JSON object): %s", what, tool, args)
	}
	return json.RawMessage(args), nil
}

// maxRetryAfter caps a server's hint, so a bogus header cannot stall a run.
const maxRetryAfter = 10 * time.Minute

// RetryAfter parses retry-after-ms (milliseconds, OpenAI) or Retry-After
// (seconds or an HTTP date). It returns 0 when neither is present or valid.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && !math.IsInf(ms, 0) {
			return capDuration(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || math.IsNaN(secs) || math.IsInf(secs, 0) {
			return 0
		}
		return capDuration(time.Duration(secs * float64(time.Second)))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return capDuration(d)
		}
	}
	return 0
}

func capDuration(d time.Duration) time.Duration {
	if d > maxRetryAfter || d < 0 {
		return maxRetryAfter
	}
	return d
}

// OneLine collapses whitespace runs (newlines included) to single spaces
// and trims the result to a readable length.
func OneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const limit = 500
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
