package mcp

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/jpcli/jp/ports"
)

// Auth gives a remote server's connection its OAuth handler (OAuth is
// implemented in oauth.go).
type Auth interface {
	// Handler returns the OAuth handler of a connection to spec; fresh
	// ignores stored tokens (jp mcp login).
	Handler(ctx context.Context, spec ports.MCPServerSpec, client *http.Client, fresh bool) (auth.OAuthHandler, error)
	// Forget removes spec's stored tokens; false when there were none.
	Forget(spec ports.MCPServerSpec) (bool, error)
}

// LoginRequiredError is a remote server's answer that it needs an OAuth
// login nobody can do here: a turn says so in one line instead of
// waiting for a browser.
type LoginRequiredError struct {
	Server string
	// Why the login is needed ("it asks for a login").
	Why string
}

func (e *LoginRequiredError) Error() string {
	why := e.Why
	if why == "" {
		why = "it asks for a login"
	}
	return fmt.Sprintf("MCP server %s needs a login (%s): run jp mcp login %s", e.Server, why, e.Server)
}

// Is lets errors.Is match ports.ErrUnavailable.
func (e *LoginRequiredError) Is(target error) bool { return target == ports.ErrUnavailable }
