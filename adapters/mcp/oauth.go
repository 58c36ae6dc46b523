package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// LoginTimeout bounds how long jp waits for the browser to come back to
// its loopback listener with an authorization code.
var LoginTimeout = 5 * time.Minute

// OAuth is the Auth of remote servers: OAuth 2.1 as the MCP
// authorization spec describes it, on the SDK's auth package (discovery
// from WWW-Authenticate and the protected-resource and authorization
// server metadata with their fallbacks, pre-registered or dynamic client
// registration, authorization code with PKCE, scope step-up) plus what
// the SDK leaves to its caller: the browser and loopback redirect, and
// tokens kept per server and resource in a 0600 file under Dir,
// refreshed when they expire.
//
// Only an interactive command (jp mcp login, call, check, resources,
// prompts) runs the browser flow; a turn that meets a server wanting a
// login fails at once with a LoginRequiredError saying which command to
// run.
type OAuth struct {
	// Dir holds one token file per server and resource (mode 0600, in a
	// 0700 directory).
	Dir string
	// Interactive lets a connection run the browser flow when the server
	// asks for a login.
	Interactive bool
	// Out is where the authorization URL is printed for the user.
	Out io.Writer
	// Browser opens a URL; nil uses $BROWSER, else xdg-open or open,
	// else only prints the URL.
	Browser func(url string) error
	// Log receives what happened (never a token).
	Log *slog.Logger
}

var _ Auth = (*OAuth)(nil)

// tokenFile is what a token file holds: the token and what refreshing
// it needs. Fields another version wrote are kept on rewrite.
type tokenFile struct {
	Format       int           `json:"format"`
	Server       string        `json:"server"`
	Resource     string        `json:"resource"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// tokenPath is where spec's tokens are kept: named by a hash of the
// server's name and URL, so nothing of the configuration shows.
func (a *OAuth) tokenPath(spec ports.MCPServerSpec) string {
	return a.tokenPathFor(spec.Name, spec.Server.URL)
}

func (a *OAuth) tokenPathFor(server, resource string) string {
	h := sha256.Sum256([]byte(server + "\x00" + resource))
	return filepath.Join(a.Dir, hex.EncodeToString(h[:16])+".json")
}

// load returns spec's stored tokens, if any.
func (a *OAuth) load(spec ports.MCPServerSpec) (*tokenFile, bool) {
	if a.Dir == "" {
		return nil, false
	}
	b, err := os.ReadFile(a.tokenPath(spec))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			a.Log.Warn("cannot read the stored MCP login; jp mcp login asks again", "server", spec.Name, "error", err)
		}
		return nil, false
	}
	var tf tokenFile
	if err := json.Unmarshal(b, &tf); err != nil || tf.Token == nil || tf.Resource != spec.Server.URL {
		a.Log.Warn("the stored MCP login is unreadable or for another URL; ignoring it", "server", spec.Name)
		return nil, false
	}
	return &tf, true
}

// save writes spec's tokens, keeping the fields of the file this
// version does not know.
func (a *OAuth) save(tf *tokenFile) error {
	if a.Dir == "" {
		return nil
	}
	p := a.tokenPathFor(tf.Server, tf.Resource)
	merged := map[string]json.RawMessage{}
	if old, err := os.ReadFile(p); err == nil {
		_ = json.Unmarshal(old, &merged)
	}
	b, err := json.Marshal(tf)
	if err != nil {
		return err
	}
	var mine map[string]json.RawMessage
	_ = json.Unmarshal(b, &mine)
	for k, v := range mine {
		merged[k] = v
	}
	out, err := json.MarshalIndent(merged, "", "  ")
	if err != nil {
		return err
	}
	return writeSecretFile(p, append(out, '\n'))
}

// Forget removes spec's stored tokens; false when there were none.
func (a *OAuth) Forget(spec ports.MCPServerSpec) (bool, error) {
	if a.Dir == "" {
		return false, nil
	}
	err := os.Remove(a.tokenPath(spec))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove the stored login of MCP server %s: %w", spec.Name, err)
	}
	return true, atomicfile.SyncDir(atomicfile.OS, a.Dir)
}

// Handler implements Auth. fresh ignores stored tokens (jp mcp login).
func (a *OAuth) Handler(ctx context.Context, spec ports.MCPServerSpec, client *http.Client, fresh bool) (auth.OAuthHandler, error) {
	h := &oauthHandler{a: a, spec: spec, client: client, interactive: a.Interactive || fresh}
	if !fresh {
		if tf, ok := a.load(spec); ok {
			h.stored = a.tokenSource(spec, client, tf, tf.Token)
		}
	}
	return h, nil
}

// tokenSource is a refreshing token source for tf that writes every new
// token back to the file.
func (a *OAuth) tokenSource(spec ports.MCPServerSpec, client *http.Client, tf *tokenFile, tok *oauth2.Token) oauth2.TokenSource {
	cfg := &oauth2.Config{
		ClientID: tf.ClientID, ClientSecret: tf.ClientSecret, Scopes: tf.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: tf.TokenURL, AuthStyle: oauth2.AuthStyle(tf.AuthStyle)},
	}
	refreshCtx := context.WithValue(context.Background(), oauth2.HTTPClient, client)
	return &savingTokenSource{a: a, spec: spec, tf: *tf, inner: cfg.TokenSource(refreshCtx, tok), last: tok.AccessToken}
}

// savingTokenSource writes each token its inner source refreshes.
type savingTokenSource struct {
	a     *OAuth
	spec  ports.MCPServerSpec
	inner oauth2.TokenSource

	mu   sync.Mutex
	tf   tokenFile
	last string
}

func (s *savingTokenSource) Token() (*oauth2.Token, error) {
	tok, err := s.inner.Token()
	if err != nil {
		s.a.Log.Info("an MCP server's stored login could not be refreshed", "server", s.spec.Name)
		return nil, &LoginRequiredError{Server: s.spec.Name, Why: "its login expired and could not be refreshed"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.AccessToken != s.last {
		s.last = tok.AccessToken
		s.tf.Token = tok
		if err := s.a.save(&s.tf); err != nil {
			s.a.Log.Warn("cannot store the refreshed MCP login", "server", s.spec.Name, "error", err)
		} else {
			s.a.Log.Debug("stored a refreshed MCP login", "server", s.spec.Name)
		}
	}
	return tok, nil
}

// oauthHandler is the auth.OAuthHandler of one connection: the stored
// tokens until the server refuses them, then (interactive only) the
// SDK's authorization code flow.
type oauthHandler struct {
	a           *OAuth
	spec        ports.MCPServerSpec
	client      *http.Client
	interactive bool

	mu     sync.Mutex
	stored oauth2.TokenSource
	flow   *auth.AuthorizationCodeHandler
	port   int // the loopback redirect's port, fixed at the first flow
}

func (h *oauthHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	flow, stored := h.flow, h.stored
	h.mu.Unlock()
	if flow != nil {
		if ts, err := flow.TokenSource(ctx); err == nil && ts != nil {
			return ts, nil
		}
	}
	return stored, nil
}

// Authorize runs when the server answered 401, or 403 asking for more
// scope.
func (h *oauthHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if !h.interactive {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		why := "it asks for a login"
		if resp.StatusCode == http.StatusForbidden {
			why = "it asks for more permissions (scopes) than the stored login has"
		}
		return &LoginRequiredError{Server: h.spec.Name, Why: why}
	}
	flow, err := h.flowHandler()
	if err != nil {
		_ = resp.Body.Close()
		return err
	}
	if err := flow.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("log in to MCP server %s: %w", h.spec.Name, err)
	}
	return nil
}

// flowHandler returns the SDK's authorization code handler, made on the
// first login with a loopback redirect on a free port.
func (h *oauthHandler) flowHandler() (*auth.AuthorizationCodeHandler, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.flow != nil {
		return h.flow, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("log in to MCP server %s: cannot listen for the browser's redirect: %w", h.spec.Name, err)
	}
	h.port = l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", h.port)
	o := h.spec.Server.OAuth
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: h.fetch,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName:              "jp",
			RedirectURIs:            []string{redirect},
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		RequestRefreshToken: true,
		Client:              h.client,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			tf := &tokenFile{Format: 1, Server: h.spec.Name, Resource: h.spec.Server.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
				TokenURL: c.Endpoint.TokenURL, AuthStyle: int(c.Endpoint.AuthStyle), Scopes: c.Scopes, Token: tok}
			if err := h.a.save(tf); err != nil {
				return nil, fmt.Errorf("store the login of MCP server %s: %w", h.spec.Name, err)
			}
			h.a.Log.Info("logged in to an MCP server; its tokens are stored", "server", h.spec.Name)
			return h.a.tokenSource(h.spec, h.client, tf, tok), nil
		},
	}
	if o.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
	}
	if len(o.Scopes) > 0 {
		scopes := append([]string(nil), o.Scopes...)
		cfg.ScopeFilter = func([]string) []string { return scopes }
	}
	flow, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("log in to MCP server %s: %w", h.spec.Name, err)
	}
	h.flow = flow
	return flow, nil
}

// fetch sends the user's browser to the authorization URL and waits for
// the redirect to come back to the loopback listener.
func (h *oauthHandler) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", h.port))
	if err != nil {
		return nil, fmt.Errorf("cannot listen on 127.0.0.1:%d for the browser's redirect (run the login again): %w", h.port, err)
	}
	got := make(chan *auth.AuthorizationResult, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if e := q.Get("error"); e != "" {
			fmt.Fprintf(w, "<p>jp: the login to MCP server %s failed: %s</p>", html.EscapeString(h.spec.Name), html.EscapeString(e))
		} else {
			fmt.Fprintf(w, "<p>jp: logged in to MCP server %s. You can close this tab.</p>", html.EscapeString(h.spec.Name))
		}
		select {
		case got <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
		default:
		}
	})}
	served := make(chan struct{})
	go func() { // ends at srv.Close below
		defer close(served)
		_ = srv.Serve(l)
	}()
	defer func() {
		_ = srv.Close()
		<-served
	}()
	if h.a.Out != nil {
		fmt.Fprintf(h.a.Out, "MCP server %s asks you to log in. Open this URL in a browser if none opened:\n%s\n", h.spec.Name, args.URL)
	}
	if err := h.a.open(args.URL); err != nil {
		h.a.Log.Info("could not open a browser; the URL is printed instead", "error", err)
	}
	t := time.NewTimer(LoginTimeout)
	defer t.Stop()
	select {
	case r := <-got:
		if r.Code == "" {
			return nil, fmt.Errorf("the authorization server sent no code back")
		}
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, fmt.Errorf("no answer from the browser within %s", LoginTimeout)
	}
}

// open opens url in the user's browser: Browser, $BROWSER, xdg-open or
// open. The browser process is not waited for beyond its start: one that
// keeps running is the user's.
func (a *OAuth) open(url string) error {
	if a.Browser != nil {
		return a.Browser(url)
	}
	var argv []string
	if b := strings.TrimSpace(os.Getenv("BROWSER")); b != "" {
		argv = append(strings.Fields(b), url)
	} else {
		for _, o := range []string{"xdg-open", "open"} {
			if p, err := exec.LookPath(o); err == nil {
				argv = []string{p, url}
				break
			}
		}
	}
	if argv == nil {
		return errors.New("no browser: set $BROWSER")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reaps the opener when it exits
	return nil
}

// writeSecretFile writes b to p atomically (temp file, fsync, rename,
// directory fsync) with mode 0600 in a 0700 directory.
func writeSecretFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(p, b, atomicfile.Options{Perm: 0o600, Secret: true})
}
