package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/samber/lo"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// MCP is the use case behind jp mcp ls and jp mcp check.
type MCP struct {
	ws     *Workspaces
	loader ports.ConfigLoader
	pool   ports.MCPPool
}

// NewMCP builds the use case.
func NewMCP(ws *Workspaces, loader ports.ConfigLoader, pool ports.MCPPool) *MCP {
	return &MCP{ws: ws, loader: loader, pool: pool}
}

// MCPServerView is one configured server, as jp mcp ls shows it.
type MCPServerView struct {
	Name    string   `json:"name"`
	Enabled bool     `json:"enabled"`
	Command []string `json:"command"`
	// URL is a remote server's endpoint (without query or user info).
	URL string `json:"url,omitempty"`
	// EnvKeys names the variables of its env table (values may be secrets).
	EnvKeys []string `json:"env_keys,omitempty"`
}

// MCPCheck is the outcome of checking one server.
type MCPCheck struct {
	Name string
	// Dir is where the server was spawned (the checkout root).
	Dir   string
	Tools []llm.Tool
	// Err is why the server failed to start or to list its tools.
	Err error
}

// load resolves the configuration as a turn there would, and the
// directory servers are spawned in: the checkout root, or the launch
// directory outside any workspace.
func (m *MCP) load(ctx context.Context, in ConfigInput) (config.Config, string, error) {
	res, root, err := resolveConfig(ctx, m.ws, m.loader, in)
	if err != nil {
		return config.Config{}, "", err
	}
	if root == "" {
		return res.Config, in.LaunchDir, nil
	}
	return res.Config, root, nil
}

// List returns the configured servers, sorted by name.
func (m *MCP) List(ctx context.Context, in ConfigInput) ([]MCPServerView, error) {
	cfg, _, err := m.load(ctx, in)
	if err != nil {
		return nil, err
	}
	names := lo.Keys(cfg.MCP.Servers)
	slices.Sort(names)
	out := make([]MCPServerView, 0, len(names))
	for _, n := range names {
		s := cfg.MCP.Servers[n]
		keys := lo.Keys(s.Env)
		slices.Sort(keys)
		out = append(out, MCPServerView{Name: n, Enabled: s.Enable, Command: s.Command, URL: s.RedactedURL(), EnvKeys: keys})
	}
	return out, nil
}

// Check starts each enabled server (or only name, enabled or not), lists
// its tools as the model would see them, and stops it. A server that
// fails is reported in its MCPCheck; the error is for the command itself.
func (m *MCP) Check(ctx context.Context, in ConfigInput, name string) ([]MCPCheck, error) {
	cfg, dir, err := m.load(ctx, in)
	if err != nil {
		return nil, err
	}
	names := cfg.MCP.EnabledServers()
	if name != "" {
		if _, err := lookupServer(cfg, dir, name); err != nil {
			return nil, err
		}
		names = []string{name}
	}
	if len(names) == 0 {
		return nil, &UserError{Msg: "no MCP servers are enabled: add an [mcp.servers.<name>] table with a command to a config file, see docs/mcp.md"}
	}
	lim := ports.MCPLimitsOf(cfg.MCP)
	out := make([]MCPCheck, 0, len(names))
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		spec := ports.MCPServerSpec{Name: n, Server: cfg.MCP.Servers[n], Dir: dir}
		c := MCPCheck{Name: n, Dir: dir}
		ts, release, err := m.pool.Lease(ctx, spec, lim)
		if err == nil {
			c.Tools, err = ts.Tools(ctx)
			release()
			if serr := m.pool.Stop(ctx, spec); err == nil {
				err = serr
			}
		}
		c.Err = err
		out = append(out, c)
	}
	return out, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// session leases name's instance (enabled or not, as jp mcp check NAME
// does) for jp mcp call, resources and prompts, and jp q --mcp-prompt.
func (m *MCP) session(ctx context.Context, in ConfigInput, name string) (ports.MCPSession, func(), error) {
	cfg, dir, err := m.load(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	spec, err := lookupServer(cfg, dir, name)
	if err != nil {
		return nil, nil, err
	}
	s, release, err := m.pool.Open(ctx, spec, ports.MCPLimitsOf(cfg.MCP))
	if err != nil {
		return nil, nil, &UserError{Msg: err.Error(), Err: err}
	}
	return s, release, nil
}

// withSession runs f on a session of server name and releases it; f's
// error is the user's to read (the server's own words).
func withSession[T any](ctx context.Context, m *MCP, in ConfigInput, name string, f func(ports.MCPSession) (T, error)) (T, error) {
	s, release, err := m.session(ctx, in, name)
	if err != nil {
		var zero T
		return zero, err
	}
	defer release()
	res, err := f(s)
	if err != nil {
		return res, &UserError{Msg: err.Error(), Err: err}
	}
	return res, nil
}

// Call calls server name's tool (by the server's own name for it) with
// args, a JSON object. A tool that reports an error is a result with
// IsError set, not an error.
func (m *MCP) Call(ctx context.Context, in ConfigInput, name, tool string, args json.RawMessage) (ports.MCPToolResult, error) {
	return withSession(ctx, m, in, name, func(s ports.MCPSession) (ports.MCPToolResult, error) {
		return s.CallTool(ctx, tool, args)
	})
}

// Resources lists server name's resources and resource templates.
func (m *MCP) Resources(ctx context.Context, in ConfigInput, name string) ([]ports.MCPResource, error) {
	return withSession(ctx, m, in, name, func(s ports.MCPSession) ([]ports.MCPResource, error) {
		return s.Resources(ctx)
	})
}

// ReadResource reads one resource of server name.
func (m *MCP) ReadResource(ctx context.Context, in ConfigInput, name, uri string) ([]ports.MCPResourceContent, error) {
	return withSession(ctx, m, in, name, func(s ports.MCPSession) ([]ports.MCPResourceContent, error) {
		return s.ReadResource(ctx, uri)
	})
}

// Prompts lists server name's prompts.
func (m *MCP) Prompts(ctx context.Context, in ConfigInput, name string) ([]ports.MCPPrompt, error) {
	return withSession(ctx, m, in, name, func(s ports.MCPSession) ([]ports.MCPPrompt, error) {
		return s.Prompts(ctx)
	})
}

// GetPrompt renders server name's prompt with args.
func (m *MCP) GetPrompt(ctx context.Context, in ConfigInput, name, prompt string, args map[string]string) (ports.MCPPromptResult, error) {
	return withSession(ctx, m, in, name, func(s ports.MCPSession) (ports.MCPPromptResult, error) {
		return s.GetPrompt(ctx, prompt, args)
	})
}

// PromptMessage renders server name's prompt as the text of a query:
// the messages' text, in order, separated by blank lines; an assistant
// message is marked "Assistant:" so the model can tell it from the
// user's words.
func (m *MCP) PromptMessage(ctx context.Context, in ConfigInput, name, prompt string, args map[string]string) (string, error) {
	res, err := m.GetPrompt(ctx, in, name, prompt, args)
	if err != nil {
		return "", err
	}
	parts := make([]string, 0, len(res.Messages))
	for _, msg := range res.Messages {
		if msg.Role == "assistant" {
			parts = append(parts, "Assistant: "+msg.Text)
			continue
		}
		parts = append(parts, msg.Text)
	}
	if strings.TrimSpace(strings.Join(parts, "")) == "" {
		return "", &UserError{Msg: fmt.Sprintf("MCP server %s's prompt %s rendered no text", name, prompt)}
	}
	return strings.Join(parts, "\n\n"), nil
}

// serverSpec resolves name's instance spec (enabled or not).
func (m *MCP) serverSpec(ctx context.Context, in ConfigInput, name string) (ports.MCPServerSpec, error) {
	cfg, dir, err := m.load(ctx, in)
	if err != nil {
		return ports.MCPServerSpec{}, err
	}
	return lookupServer(cfg, dir, name)
}

// lookupServer returns the spec of configured server name (enabled or
// not) run in dir, or the error that lists the configured ones.
func lookupServer(cfg config.Config, dir, name string) (ports.MCPServerSpec, error) {
	srv, ok := cfg.MCP.Servers[name]
	if !ok {
		known := lo.Keys(cfg.MCP.Servers)
		slices.Sort(known)
		return ports.MCPServerSpec{}, &UserError{Msg: fmt.Sprintf("no MCP server %q is configured (configured: %s); add [mcp.servers.%s] to a config file, see docs/mcp.md",
			name, listOrNone(known), name)}
	}
	return ports.MCPServerSpec{Name: name, Server: srv, Dir: dir}, nil
}

// Login runs the OAuth login of remote server name and stores its
// tokens; it returns how many tools the server listed with them.
func (m *MCP) Login(ctx context.Context, in ConfigInput, name string) (int, error) {
	spec, err := m.serverSpec(ctx, in, name)
	if err != nil {
		return 0, err
	}
	n, err := m.pool.Login(ctx, spec)
	if err != nil {
		return 0, &UserError{Msg: err.Error(), Err: err}
	}
	return n, nil
}

// Logout removes the stored tokens of server name; false when there
// were none.
func (m *MCP) Logout(ctx context.Context, in ConfigInput, name string) (bool, error) {
	spec, err := m.serverSpec(ctx, in, name)
	if err != nil {
		return false, err
	}
	ok, err := m.pool.Logout(ctx, spec)
	if err != nil {
		return false, &UserError{Msg: err.Error(), Err: err}
	}
	return ok, nil
}
