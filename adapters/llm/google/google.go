// Package google implements ports.Provider over the Gemini API with the
// official google.golang.org/genai SDK: streaming text, thought summaries
// (thinkingConfig), function calls with their thought signatures replayed,
// images, structured output and usage. See docs/providers.md.
package google

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

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

	once   sync.Once
	client *genai.Client
	err    error
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
	// The SDK keeps no response headers on its errors; the transport
	// hands each call its response so a 429's Retry-After is read.
	wrapped := *hc
	inner := hc.Transport
	if inner == nil {
		inner = http.DefaultTransport
	}
	wrapped.Transport = recorder{inner}
	return &Provider{base: strings.TrimRight(base, "/"), key: apierr.Key{Env: opts.APIKeyEnv, Set: opts.APIKey != ""}, apiKey: opts.APIKey,
		hc: &wrapped, now: time.Now, newID: func(i int) string { return fmt.Sprintf("call_%d", i) }}, nil
}

func (p *Provider) sdk(ctx context.Context) (*genai.Client, error) {
	p.once.Do(func() {
		p.client, p.err = genai.NewClient(ctx, &genai.ClientConfig{
			APIKey: p.apiKey, Backend: genai.BackendGeminiAPI, HTTPClient: p.hc,
			HTTPOptions: genai.HTTPOptions{BaseURL: p.base + "/", APIVersion: "v1beta"},
		})
	})
	return p.client, p.err
}

type seenKey struct{}

// recorder stores the HTTP response of a call into the *http.Response
// its context carries.
type recorder struct{ rt http.RoundTripper }

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := r.rt.RoundTrip(req)
	if slot, ok := req.Context().Value(seenKey{}).(**http.Response); ok && res != nil {
		*slot = res
	}
	return res, err
}

// Stream sends req and emits the streamed response. See ports.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
	contents, cfg, err := buildRequest(req)
	if err != nil {
		return apierr.Fatal("google", "%v", err)
	}
	client, err := p.sdk(ctx)
	if err != nil {
		return apierr.Fatal("google", "%v", err)
	}
	var seen *http.Response
	callCtx := context.WithValue(ctx, seenKey{}, &seen)
	s := &streamState{emit: emit, newID: p.newID}
	for resp, err := range client.Models.GenerateContentStream(callCtx, req.Model, contents, cfg) {
		if err != nil {
			return p.classify(ctx, seen, err)
		}
		if err := s.response(resp); err != nil {
			return err
		}
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if !s.finished {
		return apierr.Dropped("google", nil)
	}
	return s.finish()
}

// classify maps an SDK error: an HTTP status (with the Retry-After the
// transport saw), an error object inside the stream, or a transport
// failure.
func (p *Provider) classify(ctx context.Context, seen *http.Response, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var ae genai.APIError
	if !errors.As(err, &ae) {
		var ap *genai.APIError
		if errors.As(err, &ap) {
			ae = *ap
		} else {
			return apierr.Transport(ctx, "google", err)
		}
	}
	var header http.Header
	status := ae.Code
	if seen != nil && seen.StatusCode >= 400 {
		header, status = seen.Header, seen.StatusCode
	} else if seen != nil && seen.StatusCode < 300 {
		// An error object inside a 200 stream.
		e := apierr.FromStatus("google", ae.Code, nil, ae.Message, p.key, p.now())
		e.Status = 0
		return e
	}
	if status == 0 {
		status = http.StatusInternalServerError
	}
	return apierr.FromStatus("google", status, header, ae.Message, p.key, p.now())
}

// buildRequest maps a provider-neutral request.
func buildRequest(req llm.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	cfg := &genai.GenerateContentConfig{}
	if req.System != "" {
		cfg.SystemInstruction = genai.NewContentFromText(req.System, genai.RoleUser)
	}
	var decls []*genai.FunctionDeclaration
	for _, t := range req.Tools {
		var schema any = map[string]any{"type": "object", "properties": map[string]any{}}
		if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
			var m map[string]any
			if err := json.Unmarshal(t.Parameters, &m); err != nil || m == nil {
				return nil, nil, fmt.Errorf("tool %s: parameters: not a JSON object", t.Name)
			}
			schema = m
		}
		decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: schema})
	}
	if len(decls) > 0 {
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
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
func applyParams(cfg *genai.GenerateContentConfig, p llm.Params) {
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
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}}
	case llm.ToolChoiceNone:
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}}
	case llm.ToolChoiceRequired:
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}}
	case llm.ToolChoiceTool:
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{p.ToolChoice.Name}}}
	}
	r := p.Reasoning
	budget := func(n int32) *int32 { return &n }
	switch {
	case !r.IsSet():
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true}
	case !r.Enabled():
		cfg.ThinkingConfig = &genai.ThinkingConfig{ThinkingBudget: budget(0)}
	case r.Budget > 0:
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: budget(int32(r.Budget))}
	case r.Level == llm.ReasoningAuto:
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: budget(-1)}
	case r.Level == llm.ReasoningLow:
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingLevel: genai.ThinkingLevelLow}
	case r.Level == llm.ReasoningMedium:
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingLevel: genai.ThinkingLevelMedium}
	default:
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingLevel: genai.ThinkingLevelHigh}
	}
}

// buildContents maps the history. A model turn's first function call
// carries the thought signature stored with its reasoning (Gemini
// requires it back for the calls of the current turn), or the documented
// placeholder when none was stored.
func buildContents(msgs []llm.Message) ([]*genai.Content, error) {
	var out []*genai.Content
	names := map[string]string{}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			var parts []*genai.Part
			for _, a := range m.Attachments {
				if a.IsImage() {
					parts = append(parts, genai.NewPartFromBytes(a.Data, a.MediaType))
					continue
				}
				parts = append(parts, genai.NewPartFromText(llm.AttachmentText(a)))
			}
			if m.Text != "" || len(parts) == 0 {
				parts = append(parts, genai.NewPartFromText(m.Text))
			}
			out = append(out, genai.NewContentFromParts(parts, genai.RoleUser))
		case llm.RoleAssistant:
			var sig []byte
			for _, t := range m.Thinking {
				if data, ok := strings.CutPrefix(t.Signature, signaturePrefix); ok {
					if b, err := base64.StdEncoding.DecodeString(data); err == nil {
						sig = b
					}
				}
			}
			var parts []*genai.Part
			if m.Text != "" {
				parts = append(parts, genai.NewPartFromText(m.Text))
			}
			for i, c := range m.ToolCalls {
				names[c.ID] = c.Name
				var args map[string]any
				if len(c.Arguments) > 0 {
					if err := json.Unmarshal(c.Arguments, &args); err != nil {
						return nil, fmt.Errorf("tool call %s: arguments: %w", c.Name, err)
					}
				}
				part := genai.NewPartFromFunctionCall(c.Name, args)
				part.FunctionCall.ID = c.ID
				if i == 0 {
					part.ThoughtSignature = sig
					if sig == nil {
						part.ThoughtSignature = []byte(skipSignature)
					}
				}
				parts = append(parts, part)
			}
			if len(parts) > 0 {
				out = append(out, genai.NewContentFromParts(parts, genai.RoleModel))
			}
		case llm.RoleTool:
			key := "output"
			if m.IsError {
				key = "error"
			}
			part := genai.NewPartFromFunctionResponse(names[m.ToolCallID], map[string]any{key: m.Text})
			part.FunctionResponse.ID = m.ToolCallID
			// Consecutive results of one turn's calls go in one user turn.
			if n := len(out); n > 0 && out[n-1].Role == genai.RoleUser && len(out[n-1].Parts) > 0 && out[n-1].Parts[0].FunctionResponse != nil {
				out[n-1].Parts = append(out[n-1].Parts, part)
				continue
			}
			out = append(out, genai.NewContentFromParts([]*genai.Part{part}, genai.RoleUser))
		}
	}
	return out, nil
}

// streamState turns streamed GenerateContentResponses into llm events.
type streamState struct {
	emit     func(llm.Event) error
	newID    func(int) string
	calls    int
	thinking bool // the last emitted part was a thought
	sig      []byte
	usage    *genai.GenerateContentResponseUsageMetadata
	reason   genai.FinishReason
	model    string
	finished bool
}

func (s *streamState) response(r *genai.GenerateContentResponse) error {
	if r.UsageMetadata != nil {
		s.usage = r.UsageMetadata
	}
	if r.ModelVersion != "" {
		s.model = r.ModelVersion
	}
	if len(r.Candidates) == 0 {
		if pf := r.PromptFeedback; pf != nil && pf.BlockReason != "" {
			return &llm.Error{Kind: llm.ErrorFatal, Provider: "google", Message: apierr.OneLine("the prompt was blocked: " + string(pf.BlockReason) + " " + pf.BlockReasonMessage)}
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

func (s *streamState) part(p *genai.Part) error {
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
		usage := llm.Usage{InputTokens: int(u.PromptTokenCount), OutputTokens: int(u.CandidatesTokenCount + u.ThoughtsTokenCount),
			ReasoningTokens: int(u.ThoughtsTokenCount), CacheReadTokens: int(u.CachedContentTokenCount)}
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
	case genai.FinishReasonStop, "":
		if s.calls > 0 {
			return llm.StopToolUse
		}
		return llm.StopEnd
	case genai.FinishReasonMaxTokens:
		return llm.StopLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist, genai.FinishReasonProhibitedContent, genai.FinishReasonSPII:
		return llm.StopRefusal
	}
	return llm.StopReason(strings.ToLower(string(s.reason)))
}
