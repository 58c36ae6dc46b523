// Package ollama implements ports.Provider over Ollama's own chat API
// (POST /api/chat, NDJSON streaming): text, thinking ("think"), tool
// calls, images, structured output ("format"), usage from
// prompt_eval_count and eval_count. See docs/providers.md.
//
// It speaks HTTP with net/http: Ollama publishes no client library apart
// from its own module, whose dependency tree is the whole server.
package ollama

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/jpcli/jp/adapters/llm/internal/apierr"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// DefaultBaseURL is where a local Ollama server listens.
const DefaultBaseURL = "http://127.0.0.1:11434"

// Options configure a Provider.
type Options struct {
	// BaseURL of the server; empty means DefaultBaseURL. A trailing /v1
	// (the OpenAI-compatible layer's address) is dropped.
	BaseURL string
	// APIKey is sent as a bearer token when set (Ollama's cloud, or a
	// server behind an authenticating proxy).
	APIKey    string
	APIKeyEnv string
	// HTTPClient to use; nil means a client without timeout (streams may
	// be long; cancel through ctx).
	HTTPClient *http.Client
}

// Provider streams /api/chat responses. It is safe for concurrent use.
type Provider struct {
	base  string
	key   string
	keyOf apierr.Key
	hc    *http.Client
	newID func() string
	now   func() time.Time
}

var _ ports.Provider = (*Provider)(nil)

// New returns a Provider.
func New(opts Options) (*Provider, error) {
	base, err := BaseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Provider{base: base, key: opts.APIKey, keyOf: apierr.Key{Env: opts.APIKeyEnv, Set: opts.APIKey != ""}, hc: hc, newID: randomID, now: time.Now}, nil
}

// BaseURL normalises a configured base URL: empty is DefaultBaseURL, and a
// trailing "/" or "/v1" is dropped.
func BaseURL(s string) (string, error) {
	if s == "" {
		return DefaultBaseURL, nil
	}
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return "", errors.New("ollama: base_url " + s + " must start with http:// or https://")
	}
	s = strings.TrimRight(s, "/")
	s = strings.TrimSuffix(s, "/v1")
	return s, nil
}

// Stream sends req and emits the streamed response. See ports.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
	body, err := buildRequest(req)
	if err != nil {
		return apierr.Fatal("ollama", "%v", err)
	}
	res, err := p.post(ctx, "/api/chat", body)
	if err != nil {
		return err
	}
	defer func() { _ = res.Body.Close() }()
	dec := json.NewDecoder(res.Body)
	s := &streamState{emit: emit, newID: p.newID}
	for {
		var c chunk
		if err := dec.Decode(&c); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			if errors.Is(err, io.EOF) {
				return apierr.Dropped("ollama", nil)
			}
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				return apierr.Fatal("ollama", "malformed stream line: %v", err)
			}
			return apierr.Dropped("ollama", err)
		}
		done, err := s.chunk(c)
		if err != nil || done {
			return err
		}
	}
}

// post sends a JSON body and returns a 2xx response, or the classified
// error.
func (p *Provider) post(ctx context.Context, path string, body []byte) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, apierr.Fatal("ollama", "%v", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if p.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+p.key)
	}
	res, err := p.hc.Do(hreq)
	if err != nil {
		return nil, ConnectError(ctx, p.base, err)
	}
	if res.StatusCode >= 300 {
		defer func() { _ = res.Body.Close() }()
		return nil, apierr.FromResponse("ollama", res, p.keyOf, p.now())
	}
	return res, nil
}

// ConnectError classifies a failed connection. Nothing listening is not
// worth retrying: the server is not running, and five retries only make
// the user wait to learn it.
func ConnectError(ctx context.Context, base string, err error) error {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return &llm.Error{Kind: llm.ErrorFatal, Provider: "ollama",
			Message: "no server is listening at " + base + " (start it with `ollama serve`, or set providers.ollama.base_url)"}
	}
	return apierr.Transport(ctx, "ollama", err)
}

// randomID makes a tool-call ID: Ollama's calls carry none.
func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

// The wire types of /api/chat (https://docs.ollama.com/api/chat).
type (
	chatRequest struct {
		Model    string         `json:"model"`
		Messages []message      `json:"messages"`
		Tools    []tool         `json:"tools,omitempty"`
		Stream   bool           `json:"stream"`
		Think    any            `json:"think,omitempty"`
		Format   any            `json:"format,omitempty"`
		Options  map[string]any `json:"options,omitempty"`
	}
	message struct {
		Role      string     `json:"role"`
		Content   string     `json:"content"`
		Thinking  string     `json:"thinking,omitempty"`
		Images    []string   `json:"images,omitempty"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
		ToolName  string     `json:"tool_name,omitempty"`
	}
	toolCall struct {
		ID       string `json:"id,omitempty"`
		Function struct {
			Index     int             `json:"index,omitempty"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	tool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	chunk struct {
		Model           string  `json:"model"`
		Message         message `json:"message"`
		Done            bool    `json:"done"`
		DoneReason      string  `json:"done_reason"`
		PromptEvalCount int     `json:"prompt_eval_count"`
		EvalCount       int     `json:"eval_count"`
		Error           string  `json:"error"`
	}
)

// buildRequest maps a provider-neutral request to /api/chat.
func buildRequest(req llm.Request) ([]byte, error) {
	cr := chatRequest{Model: req.Model, Stream: true}
	if req.System != "" {
		cr.Messages = append(cr.Messages, message{Role: "system", Content: req.System})
	}
	names := map[string]string{} // call ID -> tool name, for tool results
	for _, m := range req.Messages {
		switch m.Role {
		case llm.RoleUser:
			um := message{Role: "user"}
			var parts []string
			for _, a := range m.Attachments {
				if a.IsImage() {
					um.Images = append(um.Images, base64.StdEncoding.EncodeToString(a.Data))
					continue
				}
				parts = append(parts, llm.AttachmentText(a))
			}
			um.Content = strings.Join(append(parts, m.Text), "\n\n")
			cr.Messages = append(cr.Messages, um)
		case llm.RoleAssistant:
			am := message{Role: "assistant", Content: m.Text, Thinking: m.Reasoning}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
				var tc toolCall
				tc.Function.Name = c.Name
				tc.Function.Arguments = c.Arguments
				if len(tc.Function.Arguments) == 0 {
					tc.Function.Arguments = json.RawMessage("{}")
				}
				am.ToolCalls = append(am.ToolCalls, tc)
			}
			if am.Content == "" && len(am.ToolCalls) == 0 {
				continue
			}
			cr.Messages = append(cr.Messages, am)
		case llm.RoleTool:
			text := m.Text
			if m.IsError {
				text = "Error: " + text
			}
			cr.Messages = append(cr.Messages, message{Role: "tool", Content: text, ToolName: names[m.ToolCallID]})
		}
	}
	for _, t := range req.Tools {
		var ot tool
		ot.Type = "function"
		ot.Function.Name, ot.Function.Description = t.Name, t.Description
		ot.Function.Parameters = t.Parameters
		if len(ot.Function.Parameters) == 0 || string(ot.Function.Parameters) == "null" {
			ot.Function.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if !json.Valid(ot.Function.Parameters) || ot.Function.Parameters[0] != '{' {
			return nil, fmt.Errorf("tool %s: parameters: not a JSON object", t.Name)
		}
		cr.Tools = append(cr.Tools, ot)
	}
	if len(req.Schema) > 0 {
		if !json.Valid(req.Schema) {
			return nil, errors.New("response schema: not valid JSON")
		}
		cr.Format = req.Schema
	}
	applyParams(&cr, req.Params)
	return json.Marshal(cr)
}

// applyParams maps the model parameters: max_tokens is num_predict;
// reasoning is "think" (false for off, the level for gpt-oss models,
// which take one, true otherwise); Ollama has no tool_choice.
func applyParams(cr *chatRequest, p llm.Params) {
	opts := map[string]any{}
	if p.MaxTokens > 0 {
		opts["num_predict"] = p.MaxTokens
	}
	if p.Temperature != nil {
		opts["temperature"] = *p.Temperature
	}
	if p.TopP != nil {
		opts["top_p"] = *p.TopP
	}
	if len(p.Stop) > 0 {
		opts["stop"] = p.Stop
	}
	if len(opts) > 0 {
		cr.Options = opts
	}
	r := p.Reasoning
	switch {
	case !r.IsSet() || r.Level == llm.ReasoningAuto:
	case !r.Enabled():
		cr.Think = false
	case strings.HasPrefix(cr.Model, "gpt-oss"):
		cr.Think = level(r)
	default:
		cr.Think = true
	}
}

// level names a reasoning level or budget as Ollama's low|medium|high.
func level(r llm.Reasoning) string {
	switch e := r.Effort(); e {
	case llm.ReasoningLow, llm.ReasoningMedium:
		return string(e)
	}
	return "high"
}

// streamState turns /api/chat lines into llm events.
type streamState struct {
	emit  func(llm.Event) error
	newID func() string
	calls int
}

// chunk handles one line; done is set by the final line.
func (s *streamState) chunk(c chunk) (done bool, err error) {
	if c.Error != "" {
		if apierr.Overflow(c.Error) {
			return false, &llm.Error{Kind: llm.ErrorFatal, Provider: "ollama", Message: apierr.OneLine(c.Error), Overflow: true}
		}
		return false, &llm.Error{Kind: llm.ErrorTransient, Provider: "ollama", Message: apierr.OneLine(c.Error)}
	}
	if c.Message.Thinking != "" {
		if err := s.emit(llm.Event{Kind: llm.EventReasoningDelta, Text: c.Message.Thinking}); err != nil {
			return false, err
		}
	}
	if c.Message.Content != "" {
		if err := s.emit(llm.Event{Kind: llm.EventTextDelta, Text: c.Message.Content}); err != nil {
			return false, err
		}
	}
	for _, tc := range c.Message.ToolCalls {
		name := tc.Function.Name
		if name == "" {
			return false, apierr.Fatal("ollama", "the model sent a tool call without a name")
		}
		args := strings.TrimSpace(string(tc.Function.Arguments))
		if args == "null" {
			args = ""
		}
		raw, err := apierr.ToolArguments("ollama", name, "arguments", args)
		if err != nil {
			return false, err
		}
		id := tc.ID
		if id == "" {
			id = s.newID()
		}
		s.calls++
		if err := s.emit(llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: id, Name: name, Arguments: raw}}); err != nil {
			return false, err
		}
	}
	if !c.Done {
		return false, nil
	}
	if c.PromptEvalCount != 0 || c.EvalCount != 0 {
		if err := s.emit(llm.Event{Kind: llm.EventUsage, Usage: llm.Usage{InputTokens: c.PromptEvalCount, OutputTokens: c.EvalCount}}); err != nil {
			return false, err
		}
	}
	return true, s.emit(llm.Event{Kind: llm.EventDone, Stop: s.stop(c.DoneReason), Model: c.Model})
}

// stop maps done_reason; Ollama says "stop" also when it stopped for tool
// calls.
func (s *streamState) stop(reason string) llm.StopReason {
	switch reason {
	case "length":
		return llm.StopLength
	case "stop", "":
		if s.calls > 0 {
			return llm.StopToolUse
		}
		return llm.StopEnd
	}
	return llm.StopReason(reason)
}
