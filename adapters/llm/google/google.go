// Package google implements ports.Provider over the Gemini API's REST
// interface (streamGenerateContent with server-sent events) with
// net/http and encoding/json: streaming text, thought summaries
// (thinkingConfig), function calls with their thought signatures replayed,
// images, structured output and usage. See docs/providers.md.
//
// It speaks the wire format directly rather than through the
// google.golang.org/genai SDK: the SDK brings the Google auth stack
// (gRPC, protobuf, opencensus, s2a) and go-cmp into the binary and
// initialises them on every start of jp, for an API that is one POST
// with an API key and a JSON body.
package google

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jpcli/jp/adapters/llm/internal/apierr"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// DefaultBaseURL is the Gemini API endpoint.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// signaturePrefix marks a Gemini thought signature stored as the
// signature of a reasoning block (base64 of the API's bytes).
const signaturePrefix = "gemini:"

// skipSignature is the value Gemini documents for a function call whose
// thought signature was lost (a call made by another model, or reasoning
// that was not stored): the API then skips its validation.
const skipSignature = "skip_thought_signature_validator"

// Options configure a Provider.
type Options struct {
	// BaseURL of the API; empty means DefaultBaseURL.
	BaseURL   string
	APIKey    string
	APIKeyEnv string
	// HTTPClient to use; nil means a client without timeout.
	HTTPClient *http.Client
}

// Provider streams Gemini responses. It is safe for concurrent use.
type Provider struct {
	base   string
	key    apierr.Key
	apiKey string
	hc     *http.Client
	now    func() time.Time
	newID  func(int) string
}

var _ ports.Provider = (*Provider)(nil)

// New returns a Provider.
func New(opts Options) (*Provider, error) {
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, errors.New("google: base_url " + base + " must start with http:// or https://")
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Provider{base: strings.TrimRight(base, "/"), key: apierr.Key{Env: opts.APIKeyEnv, Set: opts.APIKey != ""}, apiKey: opts.APIKey,
		hc: hc, now: time.Now, newID: func(i int) string { return fmt.Sprintf("call_%d", i) }}, nil
}

// endpoint is the streaming URL for model ("gemini-2.5-flash", or a full
// resource name such as "models/..." or "tunedModels/...").
func (p *Provider) endpoint(model string) string {
	if !strings.Contains(model, "/") {
		model = "models/" + model
	}
	return p.base + "/v1beta/" + model + ":streamGenerateContent?alt=sse"
}

// Stream sends req and emits the streamed response. See ports.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
	contents, cfg, err := buildRequest(req)
	if err != nil {
		return apierr.Fatal("google", "%v", err)
	}
	body, err := json.Marshal(cfg.body(contents))
	if err != nil {
		return apierr.Fatal("google", "%v", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint(req.Model), bytes.NewReader(body))
	if err != nil {
		return apierr.Fatal("google", "%v", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if p.apiKey != "" {
		hreq.Header.Set("X-Goog-Api-Key", p.apiKey)
	}
	res, err := p.hc.Do(hreq)
	if err != nil {
		return apierr.Transport(ctx, "google", err)
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return apierr.FromResponse("google", res, p.key, p.now())
	}
	s := &streamState{emit: emit, newID: p.newID}
	err = readSSE(res.Body, func(data []byte) error {
		var r generateResponse
		if err := json.Unmarshal(data, &r); err != nil {
			return apierr.Fatal("google", "a streamed response did not parse: %v", err)
		}
		if r.Error != nil {
			// An error object inside a 200 stream.
			e := apierr.FromStatus("google", r.Error.Code, nil, r.Error.Message, p.key, p.now())
			e.Status = 0
			return e
		}
		return s.response(&r)
	})
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var re readError
	if errors.As(err, &re) {
		return apierr.Dropped("google", re.err)
	}
	if err != nil {
		return err
	}
	if !s.finished {
		return apierr.Dropped("google", nil)
	}
	return s.finish()
}

// readError is a failure to read the response body.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }

// readSSE calls fn with the data of each server-sent event in r, until r
// ends or fn fails (its error is returned as it is). A failure to read r
// is a readError.
func readSSE(r io.Reader, fn func([]byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	flush := func() error {
		if len(data) == 0 {
			return nil
		}
		d := data
		data = data[:0]
		if string(d) == "[DONE]" {
			return nil
		}
		return fn(d)
	}
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && err == nil:
			if ferr := flush(); ferr != nil {
				return ferr
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, d...)
		}
		if err == io.EOF {
			return flush()
		}
		if err != nil {
			return readError{err}
		}
	}
}

// The Gemini API's JSON shapes (the REST reference's names), only the
// fields jp sends or reads.

type content struct {
	Parts []*part `json:"parts,omitempty"`
	Role  string  `json:"role,omitempty"`
}

type part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	ThoughtSignature []byte            `json:"thoughtSignature,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
}

type blob struct {
	MIMEType string `json:"mimeType,omitempty"`
	Data     []byte `json:"data,omitempty"`
}

type functionCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

type functionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name,omitempty"`
	Response map[string]any `json:"response,omitempty"`
}

type functionDeclaration struct {
	Name                 string `json:"name,omitempty"`
	Description          string `json:"description,omitempty"`
	ParametersJsonSchema any    `json:"parametersJsonSchema,omitempty"`
}

type tool struct {
	FunctionDeclarations []*functionDeclaration `json:"functionDeclarations,omitempty"`
}

type functionCallingConfig struct {
	Mode                 string   `json:"mode,omitempty"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type toolConfig struct {
	FunctionCallingConfig *functionCallingConfig `json:"functionCallingConfig,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int32 `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

// generationConfig is the request's generationConfig object.
type generationConfig struct {
	MaxOutputTokens    int32           `json:"maxOutputTokens,omitempty"`
	Temperature        *float32        `json:"temperature,omitempty"`
	TopP               *float32        `json:"topP,omitempty"`
	StopSequences      []string        `json:"stopSequences,omitempty"`
	ResponseMIMEType   string          `json:"responseMimeType,omitempty"`
	ResponseJsonSchema any             `json:"responseJsonSchema,omitempty"`
	ThinkingConfig     *thinkingConfig `json:"thinkingConfig,omitempty"`
}

// requestConfig is everything of a request but its contents.
type requestConfig struct {
	generationConfig
	SystemInstruction *content
	Tools             []*tool
	ToolConfig        *toolConfig
}

// generateRequest is the body of streamGenerateContent.
type generateRequest struct {
	Contents          []*content        `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []*tool           `json:"tools,omitempty"`
	ToolConfig        *toolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

func (c *requestConfig) body(contents []*content) generateRequest {
	r := generateRequest{Contents: contents, SystemInstruction: c.SystemInstruction, Tools: c.Tools, ToolConfig: c.ToolConfig}
	if g := c.generationConfig; !g.empty() {
		r.GenerationConfig = &g
	}
	if r.Contents == nil {
		r.Contents = []*content{}
	}
	return r
}

func (g generationConfig) empty() bool {
	return g.MaxOutputTokens == 0 && g.Temperature == nil && g.TopP == nil && len(g.StopSequences) == 0 &&
		g.ResponseMIMEType == "" && g.ResponseJsonSchema == nil && g.ThinkingConfig == nil
}

type usageMetadata struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
}

// generateResponse is one streamed chunk (or an error object).
type generateResponse struct {
	Candidates []struct {
		Content      *content `json:"content"`
		FinishReason string   `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata  *usageMetadata `json:"usageMetadata"`
	ModelVersion   string         `json:"modelVersion"`
	PromptFeedback *struct {
		BlockReason        string `json:"blockReason"`
		BlockReasonMessage string `json:"blockReasonMessage"`
	} `json:"promptFeedback"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Roles and enum values of the API.
const (
	roleUser  = "user"
	roleModel = "model"

	finishStop = "STOP"
)

// buildRequest maps a provider-neutral request.
func buildRequest(req llm.Request) ([]*content, *requestConfig, error) {
	cfg := &requestConfig{}
	if req.System != "" {
		cfg.SystemInstruction = &content{Parts: []*part{{Text: req.System}}, Role: roleUser}
	}
	var decls []*functionDeclaration
	for _, t := range req.Tools {
		var schema any = map[string]any{"type": "object", "properties": map[string]any{}}
		if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
			var m map[string]any
			if err := json.Unmarshal(t.Parameters, &m); err != nil || m == nil {
				return nil, nil, fmt.Errorf("tool %s: parameters: not a JSON object", t.Name)
			}
			schema = m
		}
		decls = append(decls, &functionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: schema})
	}
	if len(decls) > 0 {
		cfg.Tools = []*tool{{FunctionDeclarations: decls}}
	}
	if len(req.Schema) > 0 {
		var schema any
		if err := json.Unmarshal(req.Schema, &schema); err != nil {
			return nil, nil, fmt.Errorf("response schema: %w", err)
		}
		cfg.ResponseMIMEType, cfg.ResponseJsonSchema = "application/json", schema
	}
	applyParams(cfg, req.Params)
	contents, err := buildContents(req.Messages)
	return contents, cfg, err
}

// applyParams maps the model parameters. Reasoning is thinkingConfig:
// off is a budget of 0, a budget is thinkingBudget, a level is
// thinkingLevel (Gemini 3; 2.5 models take budgets), auto is a budget
// of -1 (dynamic); thought summaries are asked for whenever thinking is
// on.
func applyParams(cfg *requestConfig, p llm.Params) {
	if p.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(p.MaxTokens)
	}
	if p.Temperature != nil {
		t := float32(*p.Temperature)
		cfg.Temperature = &t
	}
	if p.TopP != nil {
		t := float32(*p.TopP)
		cfg.TopP = &t
	}
	cfg.StopSequences = p.Stop
	switch p.ToolChoice.Mode {
	case llm.ToolChoiceAuto:
		cfg.ToolConfig = &toolConfig{FunctionCallingConfig: &functionCallingConfig{Mode: "AUTO"}}
	case llm.ToolChoiceNone:
		cfg.ToolConfig = &toolConfig{FunctionCallingConfig: &functionCallingConfig{Mode: "NONE"}}
	case llm.ToolChoiceRequired:
		cfg.ToolConfig = &toolConfig{FunctionCallingConfig: &functionCallingConfig{Mode: "ANY"}}
	case llm.ToolChoiceTool:
		cfg.ToolConfig = &toolConfig{FunctionCallingConfig: &functionCallingConfig{Mode: "ANY", AllowedFunctionNames: []string{p.ToolChoice.Name}}}
	}
	r := p.Reasoning
	budget := func(n int32) *int32 { return &n }
	switch {
	case !r.IsSet():
		cfg.ThinkingConfig = &thinkingConfig{IncludeThoughts: true}
	case !r.Enabled():
		cfg.ThinkingConfig = &thinkingConfig{ThinkingBudget: budget(0)}
	case r.Budget > 0:
		cfg.ThinkingConfig = &thinkingConfig{IncludeThoughts: true, ThinkingBudget: budget(int32(r.Budget))}
	case r.Level == llm.ReasoningAuto:
		cfg.ThinkingConfig = &thinkingConfig{IncludeThoughts: true, ThinkingBudget: budget(-1)}
	case r.Level == llm.ReasoningLow:
		cfg.ThinkingConfig = &thinkingConfig{IncludeThoughts: true, ThinkingLevel: "LOW"}
	case r.Level == llm.ReasoningMedium:
		cfg.ThinkingConfig = &thinkingConfig{IncludeThoughts: true, ThinkingLevel: "MEDIUM"}
	default:
		cfg.ThinkingConfig = &thinkingConfig{IncludeThoughts: true, ThinkingLevel: "HIGH"}
	}
}

// buildContents maps the history. A model turn's first function call
// carries the thought signature stored with its reasoning (Gemini
// requires it back for the calls of the current turn), or the documented
// placeholder when none was stored.
func buildContents(msgs []llm.Message) ([]*content, error) {
	var out []*content
	names := map[string]string{}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			var parts []*part
			for _, a := range m.Attachments {
				if a.IsImage() {
					parts = append(parts, &part{InlineData: &blob{MIMEType: a.MediaType, Data: a.Data}})
					continue
				}
				parts = append(parts, &part{Text: llm.AttachmentText(a)})
			}
			if m.Text != "" || len(parts) == 0 {
				parts = append(parts, &part{Text: m.Text})
			}
			out = append(out, &content{Parts: parts, Role: roleUser})
		case llm.RoleAssistant:
			var sig []byte
			for _, t := range m.Thinking {
				if data, ok := strings.CutPrefix(t.Signature, signaturePrefix); ok {
					if b, err := base64.StdEncoding.DecodeString(data); err == nil {
						sig = b
					}
				}
			}
			var parts []*part
			if m.Text != "" {
				parts = append(parts, &part{Text: m.Text})
			}
			for i, c := range m.ToolCalls {
				names[c.ID] = c.Name
				var args map[string]any
				if len(c.Arguments) > 0 {
					if err := json.Unmarshal(c.Arguments, &args); err != nil {
						return nil, fmt.Errorf("tool call %s: arguments: %w", c.Name, err)
					}
				}
				pt := &part{FunctionCall: &functionCall{ID: c.ID, Name: c.Name, Args: args}}
				if i == 0 {
					pt.ThoughtSignature = sig
					if sig == nil {
						pt.ThoughtSignature = []byte(skipSignature)
					}
				}
				parts = append(parts, pt)
			}
			if len(parts) > 0 {
				out = append(out, &content{Parts: parts, Role: roleModel})
			}
		case llm.RoleTool:
			key := "output"
			if m.IsError {
				key = "error"
			}
			pt := &part{FunctionResponse: &functionResponse{ID: m.ToolCallID, Name: names[m.ToolCallID], Response: map[string]any{key: m.Text}}}
			// Consecutive results of one turn's calls go in one user turn.
			if n := len(out); n > 0 && out[n-1].Role == roleUser && len(out[n-1].Parts) > 0 && out[n-1].Parts[0].FunctionResponse != nil {
				out[n-1].Parts = append(out[n-1].Parts, pt)
				continue
			}
			out = append(out, &content{Parts: []*part{pt}, Role: roleUser})
		}
	}
	return out, nil
}

// streamState turns streamed generateResponses into llm events.
type streamState struct {
	emit     func(llm.Event) error
	newID    func(int) string
	calls    int
	thinking bool // the last emitted part was a thought
	sig      []byte
	usage    *usageMetadata
	reason   string
	model    string
	finished bool
}

func (s *streamState) response(r *generateResponse) error {
	if r.UsageMetadata != nil {
		s.usage = r.UsageMetadata
	}
	if r.ModelVersion != "" {
		s.model = r.ModelVersion
	}
	if len(r.Candidates) == 0 {
		if pf := r.PromptFeedback; pf != nil && pf.BlockReason != "" {
			return &llm.Error{Kind: llm.ErrorFatal, Provider: "google", Message: apierr.OneLine("the prompt was blocked: " + pf.BlockReason + " " + pf.BlockReasonMessage)}
		}
		return nil
	}
	c := r.Candidates[0]
	if c.Content != nil {
		for _, part := range c.Content.Parts {
			if err := s.part(part); err != nil {
				return err
			}
		}
	}
	if c.FinishReason != "" {
		s.reason = c.FinishReason
		s.finished = true
	}
	return nil
}

func (s *streamState) part(p *part) error {
	if len(p.ThoughtSignature) > 0 {
		s.sig = p.ThoughtSignature
	}
	switch {
	case p.Thought && p.Text != "":
		s.thinking = true
		return s.emit(llm.Event{Kind: llm.EventReasoningDelta, Text: p.Text})
	case p.FunctionCall != nil:
		if err := s.endThinking(); err != nil {
			return err
		}
		fc := p.FunctionCall
		if fc.Name == "" {
			return apierr.Fatal("google", "the model sent a function call without a name")
		}
		args := json.RawMessage("{}")
		if len(fc.Args) > 0 {
			b, err := json.Marshal(fc.Args)
			if err != nil {
				return apierr.Fatal("google", "function call %s: arguments: %v", fc.Name, err)
			}
			args = b
		}
		id := fc.ID
		if id == "" {
			id = s.newID(s.calls)
		}
		s.calls++
		return s.emit(llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: id, Name: fc.Name, Arguments: args}})
	case p.Text != "":
		if err := s.endThinking(); err != nil {
			return err
		}
		return s.emit(llm.Event{Kind: llm.EventTextDelta, Text: p.Text})
	}
	return nil
}

// endThinking closes the thought summary: the signature seen so far goes
// out while the reasoning block is the current one, so it is stored with
// it.
func (s *streamState) endThinking() error {
	if !s.thinking {
		return nil
	}
	s.thinking = false
	if len(s.sig) == 0 {
		return nil
	}
	sig := signaturePrefix + base64.StdEncoding.EncodeToString(s.sig)
	s.sig = nil
	return s.emit(llm.Event{Kind: llm.EventReasoningSignature, Text: sig})
}

func (s *streamState) finish() error {
	if err := s.endThinking(); err != nil {
		return err
	}
	if u := s.usage; u != nil {
		usage := llm.Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount,
			ReasoningTokens: u.ThoughtsTokenCount, CacheReadTokens: u.CachedContentTokenCount}
		if !usage.IsZero() {
			if err := s.emit(llm.Event{Kind: llm.EventUsage, Usage: usage}); err != nil {
				return err
			}
		}
	}
	return s.emit(llm.Event{Kind: llm.EventDone, Stop: s.stop(), Model: s.model})
}

func (s *streamState) stop() llm.StopReason {
	switch s.reason {
	case finishStop, "":
		if s.calls > 0 {
			return llm.StopToolUse
		}
		return llm.StopEnd
	case "MAX_TOKENS":
		return llm.StopLength
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII":
		return llm.StopRefusal
	}
	return llm.StopReason(strings.ToLower(s.reason))
}
