package app

import (
	"context"
	"fmt"
	"net/url"
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
		out = append(out, MCPServerView{Name: n, Enabled: s.Enable, Command: s.Command, URL: redactURL(s.URL), EnvKeys: keys})
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
		if _, ok := cfg.MCP.Servers[name]; !ok {
			known := lo.Keys(cfg.MCP.Servers)
			slices.Sort(known)
			return nil, &UserError{Msg: fmt.Sprintf("no MCP server %q is configured (configured: %s); add [mcp.servers.%s] to a config file, see docs/mcp.md",
				name, listOrNone(known), name)}
		}
		names = []string{name}
	}
	if len(names) == 0 {
		return nil, &UserError{Msg: "no MCP servers are enabled: add an [mcp.servers.<name>] table with a command to a config file, see docs/mcp.md"}
	}
	lim := ports.MCPLimits{IdleShutdown: cfg.MCP.IdleShutdown(), MaxInstances: cfg.MCP.MaxInstances}
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

// redactURL is u without the user info and query that may hold
// credentials ("" stays "").
func redactURL(u string) string {
	if u == "" {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}
