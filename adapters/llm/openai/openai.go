// Package openai implements ports.Provider over the OpenAI Chat Completions
// streaming API with the official SDK. With a BaseURL it serves any
// OpenAI-compatible server (Ollama, llama.cpp, vLLM, DeepSeek, ...).
// See docs/configuration.md for its configuration.
package openai

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/jpcli/jp/adapters/llm/internal/apierr"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// DefaultBaseURL is the OpenAI API endpoint used when Options.BaseURL is
// empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configure a Provider.
type Options struct {
	// BaseURL of the API, e.g. "http://127.0.0.1:11434/v1" for Ollama.
	// Empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// APIKeyEnv names the variable the key came from, for error messages
	// (e.g. "OPENAI_API_KEY").
	APIKeyEnv string
	// HTTPClient to use; nil means a client without timeout (streams may
	// be long; cancel through ctx).
	HTTPClient *http.Client
	// Name of the provider in errors, e.g. "openai" or "ollama". Empty
	// means "openai".
	Name string
	// Dialect is the service's reasoning switch and fields; empty is
	// OpenAI's (and a generic compatible server's).
	Dialect Dialect
}

// Provider streams Chat Completions. It is safe for concurrent use.
type Provider struct {
	name     string
	dialect  Dialect
	official bool // OpenAI's own API (DefaultBaseURL)
	key      apierr.Key
	client   oai.Client
	newID    func() string
	now      func() time.Time
}

var _ ports.Provider = (*Provider)(nil)

// New returns a Provider. The SDK's own retries are off: the engine
// retries transient errors.
func New(opts Options) (*Provider, error) {
	name := opts.Name
	if name == "" {
		name = "openai"
	}
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, errors.New(name + ": base_url " + base + " must start with http:// or https://")
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	client := oai.NewClient(
		option.WithBaseURL(base),
		option.WithAPIKey(opts.APIKey),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	)
	return &Provider{
		name:     name,
		dialect:  opts.Dialect,
		official: strings.TrimRight(base, "/") == DefaultBaseURL,
		key:      apierr.Key{Env: opts.APIKeyEnv, Set: opts.APIKey != ""},
		client:   client,
		newID:    randomID,
		now:      time.Now,
	}, nil
}

// Stream sends req and emits the streamed response. See ports.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
	params, extra, err := buildParamsFor(p.dialect, req, p.official)
	if err != nil {
		return apierr.Fatal(p.name, "%v", err)
	}
	extra = applyDialect(p.dialect, req, &params, extra)
	var res, seen *http.Response
	opts := []option.RequestOption{option.WithJSONSet("stream", true), option.WithResponseInto(&seen)}
	for k, v := range extra {
		opts = append(opts, option.WithJSONSet(k, v))
	}
	err = p.client.Post(ctx, "chat/completions", params, &res, opts...)
	if err != nil {
		if seen != nil && seen.Body != nil {
			defer func() { _ = seen.Body.Close() }()
		}
		return p.classify(ctx, seen, err)
	}
	if res == nil || res.Body == nil {
		return apierr.Dropped(p.name, errors.New("empty response"))
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "application/json" {
		// A server that ignored "stream": true; retrying will not help.
		defer func() { _ = res.Body.Close() }()
		body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		return apierr.Fatal(p.name, "the server answered without streaming (does it support stream: true?): %s", apierr.MessageFromBody(body))
	}
	dec := ssestream.NewDecoder(res)
	defer func() { _ = dec.Close() }()

	s := &streamState{provider: p.name, newID: p.newID, emit: emit, dialect: p.dialect}
	for dec.Next() {
		ev := dec.Event()
		data := trimData(ev.Data)
		if len(data) == 0 {
			continue
		}
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			s.sawDone = true
			break
		}
		if err := s.chunk(data); err != nil {
			return err
		}
	}
	if !s.sawDone && !s.finished() {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return apierr.Dropped(p.name, dec.Err())
	}
	return s.finish()
}

// classify maps an SDK error to *llm.Error or ctx.Err(). res is the raw
// response when there was one: its status decides, whatever the body
// looks like (the SDK fails to decode some servers' error bodies).
func (p *Provider) classify(ctx context.Context, res *http.Response, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if res != nil && res.StatusCode >= 400 {
		return apierr.FromResponse(p.name, res, p.key, p.now())
	}
	return apierr.Transport(ctx, p.name, err)
}

func trimData(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// randomID makes a tool-call ID for servers that send none.
func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
