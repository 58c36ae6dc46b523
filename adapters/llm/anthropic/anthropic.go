// Package anthropic implements ports.Provider over the Anthropic Messages
// streaming API with the official SDK: text, thinking (as reasoning, with
// its signatures sent back), tool use, images, structured output, and the
// model parameters (max_tokens, temperature, top_p, stop sequences,
// thinking budget or adaptive thinking with effort, tool choice). See docs/configuration.md
// for its configuration.
package anthropic

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/jpcli/jp/adapters/llm/internal/apierr"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// Options configure a Provider.
type Options struct {
	// BaseURL of the API; empty means the SDK's default
	// (https://api.anthropic.com).
	BaseURL string
	// APIKey is sent as x-api-key; empty sends none.
	APIKey string
	// APIKeyEnv names the variable the key came from, for error messages
	// (e.g. "ANTHROPIC_API_KEY").
	APIKeyEnv string
	// HTTPClient to use; nil means a client without timeout (streams may
	// be long; cancel through ctx).
	HTTPClient *http.Client
	// Name of the provider in errors; empty means "anthropic".
	Name string
	// MaxTokens caps the response when the request's parameters do not;
	// 0 means the model's maximum output (ModelMaxTokens).
	MaxTokens int64
}

// Provider streams Messages API responses. It is safe for concurrent use.
type Provider struct {
	name      string
	key       apierr.Key
	maxTokens int64
	client    sdk.Client
	now       func() time.Time
}

var _ ports.Provider = (*Provider)(nil)

// New returns a Provider. The SDK reads no credentials from the
// environment (the caller passes them), and its own retries are off: the
// engine retries transient errors.
func New(opts Options) (*Provider, error) {
	name := opts.Name
	if name == "" {
		name = "anthropic"
	}
	if opts.MaxTokens < 0 {
		return nil, errors.New(name + ": max_tokens must not be negative")
	}
	maxTokens := opts.MaxTokens
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	ropts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if opts.BaseURL != "" {
		if !strings.HasPrefix(opts.BaseURL, "http://") && !strings.HasPrefix(opts.BaseURL, "https://") {
			return nil, errors.New(name + ": base_url " + opts.BaseURL + " must start with http:// or https://")
		}
		ropts = append(ropts, option.WithBaseURL(opts.BaseURL))
	}
	if opts.APIKey != "" {
		ropts = append(ropts, option.WithAPIKey(opts.APIKey))
	}
	return &Provider{
		name:      name,
		key:       apierr.Key{Env: opts.APIKeyEnv, Set: opts.APIKey != ""},
		maxTokens: maxTokens,
		client:    sdk.NewClient(ropts...),
		now:       time.Now,
	}, nil
}

// Stream sends req and emits the streamed response. See ports.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
	params, err := buildParams(req, p.maxTokens)
	if err != nil {
		return apierr.Fatal(p.name, "%v", err)
	}
	var seen *http.Response
	stream := p.client.Messages.NewStreaming(ctx, params, option.WithResponseInto(&seen))
	defer func() { _ = stream.Close() }()

	s := &streamState{provider: p.name, emit: emit}
	for stream.Next() {
		if err := s.event(stream.Current()); err != nil {
			return err
		}
		if s.stopped {
			return s.finish()
		}
	}
	if err := stream.Err(); err != nil {
		return p.classify(ctx, seen, err)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return apierr.Dropped(p.name, nil)
}

// classify maps an SDK error to *llm.Error or ctx.Err().
func (p *Provider) classify(ctx context.Context, res *http.Response, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if res != nil && res.StatusCode >= 400 {
		return apierr.FromResponse(p.name, res, p.key, p.now())
	}
	var ae *sdk.Error
	if errors.As(err, &ae) {
		// An error event inside a 200 stream: classify by its type.
		return streamError(p.name, ae, p.key)
	}
	if res != nil && res.StatusCode < 300 {
		// The body failed while streaming: a dropped connection.
		return apierr.Dropped(p.name, err)
	}
	return apierr.Transport(ctx, p.name, err)
}

// streamError maps an "event: error" of the stream.
func streamError(provider string, ae *sdk.Error, key apierr.Key) *llm.Error {
	msg := apierr.MessageFromBody([]byte(ae.RawJSON()))
	e := &llm.Error{Provider: provider, Kind: llm.ErrorTransient, Message: apierr.OneLine(msg)}
	switch ae.Type() {
	case "invalid_request_error", "not_found_error", "billing_error":
		e.Kind = llm.ErrorFatal
		e.Overflow = apierr.Overflow(msg)
	case "authentication_error", "permission_error":
		auth := apierr.FromStatus(provider, http.StatusUnauthorized, nil, msg, key, time.Time{})
		auth.Status = 0 // the HTTP status was 200; the error came inside the stream
		return auth
	}
	if e.Message == "" {
		e.Message = "error in the response stream: " + string(ae.Type())
	}
	return e
}
