package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectRemote connects c to its server's url over Streamable HTTP: the
// SDK's transport keeps the session ID, opens the GET stream for
// server-initiated messages, and resumes a broken stream with
// Last-Event-ID after the server's retry interval.
func (c *conn) connectRemote(ctx context.Context, client *sdk.Client, orders *orderRecorder, o *Options, fresh bool) (*conn, error) {
	srv, name := c.spec.Server, c.spec.Name
	u, err := url.Parse(srv.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.cancel()
		return nil, fmt.Errorf("MCP server %s: mcp.servers.%s.url must be an http:// or https:// URL, got %q", name, name, srv.RedactedURL())
	}
	ht := &headerTransport{base: &orderRoundTripper{base: o.httpTransport(), rec: orders}, headers: srv.Headers}
	if env := srv.BearerTokenEnv; env != "" {
		tok := os.Getenv(env)
		if tok == "" {
			c.cancel()
			return nil, fmt.Errorf("MCP server %s: the environment variable %s (mcp.servers.%s.bearer_token_env) is empty or unset; export the server's token in it", name, env, name)
		}
		ht.bearer = tok
	}
	st := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: ht}}
	if srv.BearerTokenEnv == "" && o.Auth != nil {
		h, err := o.Auth.Handler(ctx, c.spec, &http.Client{Transport: ht}, fresh)
		if err != nil {
			c.cancel()
			return nil, err
		}
		st.OAuthHandler = h
	}
	hctx, hcancel := context.WithTimeout(ctx, StartTimeout)
	defer hcancel()
	session, err := client.Connect(hctx, st, nil)
	if err != nil {
		c.cancel()
		var login *LoginRequiredError
		switch {
		case errors.As(err, &login):
			return nil, login
		case ctx.Err() != nil:
			return nil, fmt.Errorf("connect to MCP server %s: %w", name, ctx.Err())
		case hctx.Err() != nil:
			return nil, fmt.Errorf("MCP server %s (%s) did not answer the MCP handshake within %s", name, srv.RedactedURL(), StartTimeout)
		}
		return nil, fmt.Errorf("MCP server %s: cannot connect to %s (mcp.servers.%s.url): %v", name, srv.RedactedURL(), name, err)
	}
	c.session = session
	c.ended = make(chan struct{})
	go func() { // ends when the session does (close, or the server went away)
		_ = session.Wait()
		close(c.ended)
	}()
	return c, nil
}

// headerTransport adds a remote server's configured headers and bearer
// token to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	bearer  string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 || t.bearer != "" {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
		if t.bearer != "" {
			req.Header.Set("Authorization", "Bearer "+t.bearer)
		}
	}
	return t.base.RoundTrip(req)
}

// httpTransport is the round tripper remote connections use.
func (o *Options) httpTransport() http.RoundTripper {
	if o.HTTPTransport != nil {
		return o.HTTPTransport
	}
	return http.DefaultTransport
}

// orderRoundTripper records the property order of elicitation schemas in
// a remote server's responses, as orderTransport does for stdio: the
// SDK's Streamable HTTP connection cannot be wrapped (the session needs
// its unexported methods), so the order is read from the HTTP bodies,
// JSON or server-sent events, as the SDK reads them.
type orderRoundTripper struct {
	base http.RoundTripper
	rec  *orderRecorder
}

func (t *orderRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	resp.Body = &orderBody{ReadCloser: resp.Body, rec: t.rec}
	return resp, nil
}

// orderBody passes a response body through, noting each line (an SSE
// data line, or a whole JSON body) that carries an elicitation.
type orderBody struct {
	io.ReadCloser
	rec  *orderRecorder
	line []byte
}

// maxOrderLine bounds what orderBody keeps of one line; a longer line is
// passed through without being looked at.
const maxOrderLine = 4 << 20

func (b *orderBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	chunk := p[:n]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			if len(b.line)+len(chunk) <= maxOrderLine {
				b.line = append(b.line, chunk...)
			} else {
				b.line = b.line[:0]
			}
			break
		}
		if len(b.line)+i <= maxOrderLine {
			b.noteLine(append(b.line, chunk[:i]...))
		}
		b.line = b.line[:0]
		chunk = chunk[i+1:]
	}
	if err != nil && len(b.line) > 0 {
		b.noteLine(b.line)
		b.line = nil
	}
	return n, err
}

func (b *orderBody) noteLine(line []byte) {
	if !bytes.Contains(line, []byte(methodElicit)) {
		return
	}
	line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte("data:")))
	b.rec.noteMessage(line)
}
