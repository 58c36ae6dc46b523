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
	Handler(ctx context.Context, spec ports.MCPServerSpec, client *http.Client) (auth.OAuthHandler, error)
}

// LoginRequiredError is a remote server's answer that it needs an OAuth
// login nobody can do here: a turn says so in one line instead of
// waiting for a browser.
type LoginRequiredError struct {
	Server string
}

func (e *LoginRequiredError) Error() string {
	return fmt.Sprintf("MCP server %s needs a login: run jp mcp login %s", e.Server, e.Server)
}

// Is lets errors.Is match ports.ErrUnavailable.
func (e *LoginRequiredError) Is(target error) bool { return target == ports.ErrUnavailable }
