package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectRemote connects c to its server's url over Streamable HTTP: the
// SDK's transport keeps the session ID, opens the GET stream for
// server-initiated messages, and resumes a broken stream with
// Last-Event-ID after the server's retry interval.
func (c *conn) connectRemote(ctx context.Context, client *sdk.Client, orders *orderRecorder, o *Options) (*conn, error) {
	srv, name := c.spec.Server, c.spec.Name
	u, err := url.Parse(srv.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.cancel()
		return nil, fmt.Errorf("MCP server %s: mcp.servers.%s.url must be an http:// or https:// URL, got %q", name, name, redactURL(srv.URL))
	}
	ht := &headerTransport{base: o.httpTransport(), headers: srv.Headers}
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
		h, err := o.Auth.Handler(ctx, c.spec, &http.Client{Transport: ht})
		if err != nil {
			c.cancel()
			return nil, err
		}
		st.OAuthHandler = h
	}
	hctx, hcancel := context.WithTimeout(ctx, StartTimeout)
	defer hcancel()
	session, err := client.Connect(hctx, &orderTransport{inner: st, rec: orders}, nil)
	if err != nil {
		c.cancel()
		var login *LoginRequiredError
		switch {
		case errors.As(err, &login):
			return nil, login
		case ctx.Err() != nil:
			return nil, fmt.Errorf("connect to MCP server %s: %w", name, ctx.Err())
		case hctx.Err() != nil:
			return nil, fmt.Errorf("MCP server %s (%s) did not answer the MCP handshake within %s", name, redactURL(srv.URL), StartTimeout)
		}
		return nil, fmt.Errorf("MCP server %s: cannot connect to %s (mcp.servers.%s.url): %v", name, redactURL(srv.URL), name, err)
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

// redactURL is u without its user info and query, which may hold
// credentials, for messages and logs.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return strings.TrimSuffix(p.String(), "?")
}
