package ports

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
)

// ErrMCPLimit is returned by MCPPool.Lease when mcp.max_instances
// instances run and none went idle while the lease waited.
var ErrMCPLimit = errors.New("too many MCP server instances")

// MCPServerSpec names one instance of an MCP server: the server's name,
// its resolved [mcp.servers.<name>] table and the directory it is spawned
// in (the turn's checkout root). Two specs that differ in any of the three
// are two instances (one pool, instances keyed by server,
// configuration and spawn directory).
type MCPServerSpec struct {
	Name   string
	Server config.MCPServer
	Dir    string
}

// MCPLimits are the [mcp] settings a lease runs under.
type MCPLimits struct {
	// IdleShutdown is mcp.idle_shutdown_secs: an instance no lease has
	// held for this long is stopped (0: as soon as its last lease ends).
	IdleShutdown time.Duration
	// MaxInstances is mcp.max_instances: at most this many instances run.
	MaxInstances int
}

// MCPLimitsOf reads the limits from the [mcp] configuration.
func MCPLimitsOf(m config.MCP) MCPLimits {
	return MCPLimits{IdleShutdown: m.IdleShutdown(), MaxInstances: m.MaxInstances}
}

// MCPPool is the process's one pool of MCP server instances. Its methods
// are safe for concurrent use; turns in several checkouts share it.
type MCPPool interface {
	// Lease returns the running instance of spec, starting it (in
	// spec.Dir) when none runs or the one that ran has died. The
	// ToolServer offers the server's tools as <server>__<tool> and maps
	// those names back on Call. release ends the lease; it is idempotent.
	// With lim.MaxInstances instances running and none idle, Lease waits
	// for one to go idle, then fails with an error wrapping ErrMCPLimit.
	Lease(ctx context.Context, spec MCPServerSpec, lim MCPLimits) (server ToolServer, release func(), err error)
	// CachedTools returns the tools (as <server>__<tool>) spec's instance
	// listed the last time one was started, without starting it; false
	// when none is known. A started instance's listing replaces the
	// entry, and a server's tools/list_changed notification drops it.
	CachedTools(spec MCPServerSpec) ([]llm.Tool, bool)
	// Open leases spec's instance as Lease does, for jp mcp call,
	// resources and prompts: the session also reaches the server's tools
	// by their own names, its resources and its prompts.
	Open(ctx context.Context, spec MCPServerSpec, lim MCPLimits) (session MCPSession, release func(), err error)
	// Login runs the OAuth login of spec's remote server (jp mcp login):
	// stored tokens are ignored, the user's browser is sent to the
	// authorization server, and the new tokens are stored. It returns how
	// many tools the server listed with them.
	Login(ctx context.Context, spec MCPServerSpec) (tools int, err error)
	// Logout removes spec's stored tokens (jp mcp logout); false when
	// there were none.
	Logout(ctx context.Context, spec MCPServerSpec) (removed bool, err error)
	// Stop stops spec's instance now unless a lease holds it (jp mcp
	// check starts, lists and stops each server).
	Stop(ctx context.Context, spec MCPServerSpec) error
	// Shutdown stops every instance (close stdin, a grace period, then
	// SIGTERM and SIGKILL to its process group) and refuses later leases.
	Shutdown(ctx context.Context) error
}

// MCPSession is a leased MCP server instance beyond its tools as the
// model sees them.
type MCPSession interface {
	ToolServer
	// CallTool calls the server's tool by its own name (not the
	// <server>__<tool> name offered to the model).
	CallTool(ctx context.Context, tool string, args json.RawMessage) (MCPToolResult, error)
	// Resources lists the server's resources and resource templates.
	Resources(ctx context.Context) ([]MCPResource, error)
	// ReadResource reads one resource by its URI.
	ReadResource(ctx context.Context, uri string) ([]MCPResourceContent, error)
	// Prompts lists the server's prompts.
	Prompts(ctx context.Context) ([]MCPPrompt, error)
	// GetPrompt renders one prompt with its arguments.
	GetPrompt(ctx context.Context, name string, args map[string]string) (MCPPromptResult, error)
}

// MCPToolResult is a tool's result: as the model would see it (Text) and
// as the server sent it (JSON, the MCP CallToolResult object).
type MCPToolResult struct {
	Text    string
	IsError bool
	JSON    json.RawMessage
}

// MCPResource is one resource, or a resource template (Template set,
// URI empty), a server offers.
type MCPResource struct {
	URI         string `json:"uri,omitempty"`
	Template    string `json:"uri_template,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
}

// MCPResourceContent is one part of a read resource: Text, or Blob for
// binary contents.
type MCPResourceContent struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

// MCPPrompt is one prompt a server offers.
type MCPPrompt struct {
	Name        string              `json:"name"`
	Title       string              `json:"title,omitempty"`
	Description string              `json:"description,omitempty"`
	Arguments   []MCPPromptArgument `json:"arguments"`
}

// MCPPromptArgument is one argument of a prompt.
type MCPPromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

// MCPPromptResult is a rendered prompt: its messages, each as text
// (non-text content described in one line).
type MCPPromptResult struct {
	Description string             `json:"description,omitempty"`
	Messages    []MCPPromptMessage `json:"messages"`
}

// MCPPromptMessage is one message of a rendered prompt.
type MCPPromptMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}
