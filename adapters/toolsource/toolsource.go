// Package toolsource is the ports.ToolSource the engine opens once per
// turn: the configuration's local command tools (adapters/localtools)
// merged with the tools of every enabled MCP server, leased from the
// process's MCP pool (at Open, or at the first call of a server whose
// tool list is cached) and released when the turn ends. See docs/mcp.md.
package toolsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/jpcli/jp/adapters/builtintools"
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

// Open offers the tools of every enabled MCP server of cfg, spawned in
// root. A server whose tool list is cached (from the last time it ran) is
// not started: its tools are offered from the cache, and it is leased
// from the pool when the model calls one of them. A server with no cached
// list is leased now, in parallel with the others, and a server that
// fails to start then fails the turn with a message naming it (the
// leases already taken are released). See docs/mcp.md.
func (s *Source) Open(ctx context.Context, cfg config.Config, root string) (ports.ToolServer, func(), error) {
	names := cfg.MCP.EnabledServers()
	if len(names) > 0 && cfg.MCP.MaxInstances > 0 && len(names) > cfg.MCP.MaxInstances {
		return nil, nil, fmt.Errorf("%d MCP servers are enabled but mcp.max_instances = %d: a turn needs one instance of each; raise mcp.max_instances or disable servers with mcp.servers.<name>.enable = false: %w",
			len(names), cfg.MCP.MaxInstances, ports.ErrMCPLimit)
	}
	lim := ports.MCPLimitsOf(cfg.MCP)
	servers := make([]*lazy, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		l := &lazy{pool: s.pool, spec: ports.MCPServerSpec{Name: name, Server: cfg.MCP.Servers[name], Dir: root}, lim: lim}
		servers[i] = l
		if tools, ok := s.pool.CachedTools(l.spec); ok {
			l.cached = tools
			continue
		}
		wg.Go(func() { errs[i] = l.lease(ctx) })
	}
	wg.Wait()
	release := func() {
		for _, l := range servers {
			l.close()
		}
	}
	if err := errors.Join(errs...); err != nil {
		release()
		return nil, nil, err
	}
	builtin := builtintools.New(cfg, root)
	all := []ports.ToolServer{localtools.New(cfg, root), builtin}
	for _, l := range servers {
		all = append(all, l)
	}
	return &merged{servers: all, log: s.log}, func() { release(); _ = builtin.Close() }, nil
}

// lazy is one MCP server of a turn: leased from the pool at Open (no
// cached tool list) or at its first Call (cached list), released once
// when the turn ends.
type lazy struct {
	pool   ports.MCPPool
	spec   ports.MCPServerSpec
	lim    ports.MCPLimits
	cached []llm.Tool // offered until the server is leased

	mu      sync.Mutex
	srv     ports.ToolServer
	release func()
	closed  bool
}

// lease takes the lease if none is held.
func (l *lazy) lease(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.srv != nil {
		return nil
	}
	if l.closed {
		return fmt.Errorf("MCP server %s: the turn has ended", l.spec.Name)
	}
	srv, release, err := l.pool.Lease(ctx, l.spec, l.lim)
	if err != nil {
		return err
	}
	l.srv, l.release = srv, release
	return nil
}

func (l *lazy) leased() ports.ToolServer {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.srv
}

// Tools offers the cached list until the server is leased, then the
// server's own.
func (l *lazy) Tools(ctx context.Context) ([]llm.Tool, error) {
	if srv := l.leased(); srv != nil {
		return srv.Tools(ctx)
	}
	if l.cached != nil {
		return append([]llm.Tool(nil), l.cached...), nil
	}
	if err := l.lease(ctx); err != nil {
		return nil, err
	}
	return l.leased().Tools(ctx)
}

// Call starts the server when this is the turn's first call of it. A
// server that fails to start is an error result the model sees, naming
// the server.
func (l *lazy) Call(ctx context.Context, name string, args json.RawMessage) (ports.ToolResult, error) {
	if err := l.lease(ctx); err != nil {
		if ctx.Err() != nil {
			return ports.ToolResult{Content: "cancelled", IsError: true}, nil
		}
		return ports.ToolResult{Content: err.Error(), IsError: true}, nil
	}
	return l.leased().Call(ctx, name, args)
}

// close releases the lease, if one was taken; later calls fail.
func (l *lazy) close() {
	l.mu.Lock()
	release := l.release
	l.closed, l.srv, l.release = true, nil, nil
	l.mu.Unlock()
	if release != nil {
		release()
	}
}

// merged offers the tools of several servers and routes each call to the
// server that offered the name. The first server offering a name wins
// (local command tools come first, then the built-in tools).
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

var _ ports.ToolPreviewer = (*merged)(nil)

// Preview asks the server that offered name to plan the call, when it
// can (the built-in write tools).
func (m *merged) Preview(ctx context.Context, name string, args json.RawMessage) (ports.ToolPreview, bool, error) {
	if _, err := m.Tools(ctx); err != nil {
		return ports.ToolPreview{}, false, err
	}
	m.mu.Lock()
	srv := m.route[name]
	m.mu.Unlock()
	if p, ok := srv.(ports.ToolPreviewer); ok {
		return p.Preview(ctx, name, args)
	}
	return ports.ToolPreview{}, false, nil
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

var _ ports.ToolClassifier = (*merged)(nil)

// ToolKind asks the server that offered name what kind of tool it is;
// an MCP tool (whose server cannot say) is ToolKindOther.
func (m *merged) ToolKind(name string) ports.ToolKind {
	if _, err := m.Tools(context.Background()); err != nil {
		return ports.ToolKindOther
	}
	m.mu.Lock()
	srv := m.route[name]
	m.mu.Unlock()
	if c, ok := srv.(ports.ToolClassifier); ok {
		return c.ToolKind(name)
	}
	return ports.ToolKindOther
}
