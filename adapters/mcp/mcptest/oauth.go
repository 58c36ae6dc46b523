// Package mcptest has test doubles for jp's MCP tests: an MCP server over
// Streamable HTTP protected by OAuth 2.1 as the MCP authorization spec
// describes it (protected-resource and authorization-server metadata,
// dynamic registration, authorization code with PKCE, refresh tokens).
package mcptest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// OAuthServer is an OAuth-protected MCP server with an echo tool. Its
// URL + "/mcp" is the MCP endpoint; it is its own authorization server.
type OAuthServer struct {
	*httptest.Server
	mu        sync.Mutex
	lifetime  time.Duration // the access tokens' lifetime (expires_in)
	codes     map[string]codeGrant
	access    map[string]bool
	refresh   map[string]bool
	issued    []string // every token handed out, access and refresh
	authorize int      // authorization requests served
	registers int      // dynamic registrations
	grants    map[string]int
}

type codeGrant struct {
	challenge, redirect string
}

// NewOAuthServer starts the server; Close stops it.
func NewOAuthServer(lifetime time.Duration) *OAuthServer {
	s := &OAuthServer{lifetime: lifetime, codes: map[string]codeGrant{}, access: map[string]bool{}, refresh: map[string]bool{}, grants: map[string]int{}}
	type echoIn struct {
		Message string `json:"message"`
	}
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
		srv := sdk.NewServer(&sdk.Implementation{Name: "oauth-fake", Version: "1"}, nil)
		sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echoes."}, func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Echo: " + in.Message}}}, nil, nil
		})
		return srv
	}, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		valid := ok && s.access[tok]
		s.mu.Unlock()
		if !valid {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": s.URL + "/mcp", "authorization_servers": []string{s.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": s.URL, "authorization_endpoint": s.URL + "/authorize", "token_endpoint": s.URL + "/token",
			"registration_endpoint": s.URL + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("/register", s.handleRegister)
	mux.HandleFunc("/authorize", s.handleAuthorize)
	mux.HandleFunc("/token", s.handleToken)
	// Started only once s.Server is set: the handlers read s.URL.
	s.Server = httptest.NewUnstartedServer(mux)
	s.Start()
	return s
}

// handleRegister is dynamic client registration: any metadata, a new
// client ID.
func (s *OAuthServer) handleRegister(w http.ResponseWriter, r *http.Request) {
	var md map[string]any
	_ = json.NewDecoder(r.Body).Decode(&md)
	s.mu.Lock()
	s.registers++
	s.mu.Unlock()
	md["client_id"] = "client-" + randText()
	w.WriteHeader(http.StatusCreated)
	writeJSON(w, md)
}

// handleAuthorize grants a code for a PKCE S256 challenge and redirects
// back with it.
func (s *OAuthServer) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
		return
	}
	code := randText()
	s.mu.Lock()
	s.authorize++
	s.codes[code] = codeGrant{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
	s.mu.Unlock()
	u, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	rq := u.Query()
	rq.Set("code", code)
	rq.Set("state", q.Get("state"))
	u.RawQuery = rq.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// handleToken exchanges a code (checking its PKCE verifier) or a refresh
// token (rotated) for new tokens.
func (s *OAuthServer) handleToken(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	grant := r.PostForm.Get("grant_type")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.grants[grant]++
	switch grant {
	case "authorization_code":
		g, ok := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]string{"error": "invalid_grant"})
			return
		}
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		if !s.refresh[rt] {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(s.refresh, rt) // rotated
	default:
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	at, rt := "at-"+randText(), "rt-"+randText()
	s.access[at], s.refresh[rt] = true, true
	s.issued = append(s.issued, at, rt)
	writeJSON(w, map[string]any{"access_token": at, "token_type": "Bearer", "refresh_token": rt, "expires_in": int(s.lifetime.Seconds())})
}

// SetLifetime changes the lifetime of the tokens issued from now on.
func (s *OAuthServer) SetLifetime(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lifetime = d
}

// Issued returns every token the server handed out.
func (s *OAuthServer) Issued() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.issued...)
}

// Counts returns how many authorization requests, registrations and
// token grants of each type the server served.
func (s *OAuthServer) Counts() (authorize, registers int, grants map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := map[string]int{}
	for k, v := range s.grants {
		g[k] = v
	}
	return s.authorize, s.registers, g
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func randText() string { return strings.ToLower(rand.Text()) }
