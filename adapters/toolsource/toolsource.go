// Package toolsource is the ports.ToolSource the engine opens once per
// turn: the configuration's local command tools (adapters/localtools)
// merged with the tools of every enabled MCP server, leased from the
// process's MCP pool in Open and released when the turn ends. See
// docs/mcp.md.
package toolsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/jpcli/jp/adapters/localtools"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// Source merges local and MCP tools for a turn.
type Source struct {
	pool ports.MCPPool
	log  *slog.Logger
}

var _ ports.ToolSource = (*Source)(nil)

// New returns the source leasing MCP servers from pool; log (may be nil)
// receives name clashes.
func New(pool ports.MCPPool, log *slog.Logger) *Source {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Source{pool: pool, log: log}
}

// Open leases every enabled MCP server of cfg, spawned in root, in
// parallel. A server that fails to start fails the turn with a message
// naming it; the leases already taken are released.
func (s *Source) Open(ctx context.Context, cfg config.Config, root string) (ports.ToolServer, func(), error) {
	names := cfg.MCP.EnabledServers()
	if len(names) > 0 && cfg.MCP.MaxInstances > 0 && len(names) > cfg.MCP.MaxInstances {
		return nil, nil, fmt.Errorf("%d MCP servers are enabled but mcp.max_instances = %d: a turn needs one instance of each; raise mcp.max_instances or disable servers with mcp.servers.<name>.enable = false: %w",
			len(names), cfg.MCP.MaxInstances, ports.ErrMCPLimit)
	}
	lim := ports.MCPLimits{IdleShutdown: cfg.MCP.IdleShutdown(), MaxInstances: cfg.MCP.MaxInstances}
	servers := make([]ports.ToolServer, len(names))
	releases := make([]func(), len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			spec := ports.MCPServerSpec{Name: name, Server: cfg.MCP.Servers[name], Dir: root}
			servers[i], releases[i], errs[i] = s.pool.Lease(ctx, spec, lim)
		})
	}
	wg.Wait()
	release := func() {
		for _, r := range releases {
			if r != nil {
				r()
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		release()
		return nil, nil, err
	}
	all := append([]ports.ToolServer{localtools.New(cfg, root)}, servers...)
	return &merged{servers: all, log: s.log}, release, nil
}

// merged offers the tools of several servers and routes each call to the
// server that offered the name. The first server offering a name wins
// (local tools come first).
type merged struct {
	servers []ports.ToolServer
	log     *slog.Logger

	mu    sync.Mutex
	tools []llm.Tool
	route map[string]ports.ToolServer
}

// Tools lists every server's tools, once per turn.
func (m *merged) Tools(ctx context.Context) ([]llm.Tool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.route != nil {
		return append([]llm.Tool(nil), m.tools...), nil
	}
	route := map[string]ports.ToolServer{}
	var tools []llm.Tool
	for _, srv := range m.servers {
		ts, err := srv.Tools(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if _, dup := route[t.Name]; dup {
				m.log.Warn("two tools share a name; offering the first", "tool", t.Name)
				continue
			}
			route[t.Name] = srv
			tools = append(tools, t)
		}
	}
	m.tools, m.route = tools, route
	return append([]llm.Tool(nil), tools...), nil
}

// Call runs name on the server that offered it.
func (m *merged) Call(ctx context.Context, name string, args json.RawMessage) (ports.ToolResult, error) {
	if _, err := m.Tools(ctx); err != nil {
		return ports.ToolResult{}, err
	}
	m.mu.Lock()
	srv := m.route[name]
	m.mu.Unlock()
	if srv == nil {
		return ports.ToolResult{Content: fmt.Sprintf("unknown tool %q", name), IsError: true}, nil
	}
	return srv.Call(ctx, name, args)
}
