package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// ErrClosed is returned by a lease asked for after Shutdown.
var ErrClosed = errors.New("the MCP server pool is shut down")

// Options configure a Pool.
type Options struct {
	// Prompter asks the user a server's elicitations; nil declines them.
	Prompter ports.Prompter
	// Timers drive idle shutdown and the wait at mcp.max_instances.
	Timers ports.Timers
	// Log receives server stderr (debug) and pool events; nil discards.
	Log *slog.Logger
	// ClientVersion is the version jp reports in the MCP handshake.
	ClientVersion string
	// LeaseWait bounds how long a lease waits at mcp.max_instances for an
	// instance to go idle (default 30s).
	LeaseWait time.Duration
	// CacheDir keeps each instance's last tools/list answer (see
	// CachedTools); "" keeps none.
	CacheDir string
	// Auth gives remote servers without bearer_token_env their OAuth
	// handler; nil connects without OAuth.
	Auth Auth
	// HTTPTransport carries remote servers' requests (default
	// http.DefaultTransport).
	HTTPTransport http.RoundTripper
}

// Pool is the ports.MCPPool: one per process, shared by every turn.
//
// An instance's life:
//
//	Lease (none running) -> starting -> leased <-> idle --idle_shutdown--> stopped
//	                                       |        |
//	                                       +--------+-- died / Stop / Shutdown --> stopped
type Pool struct {
	o     Options
	el    *elicitor
	cache *toolCache

	mu      sync.Mutex
	insts   map[string]*instance
	changed chan struct{} // closed and replaced when an instance goes idle or away
	closed  bool
	seq     uint64 // orders idle instances, oldest first

	// wg counts the goroutines the pool owns: idle watchers, background
	// stops and starts in flight. Shutdown waits for them.
	wg sync.WaitGroup
	// afterStop, when set (tests), runs after an instance stopped.
	afterStop func(spec ports.MCPServerSpec)
}

// instance is one entry of the pool.
type instance struct {
	key    string
	spec   ports.MCPServerSpec
	ready  chan struct{} // closed once the start finished
	c      *conn         // set when ready, nil if the start failed
	err    error         // the start's error
	leases int
	idle   chan struct{} // closed to call off the idle watcher; nil when none
	since  uint64        // seq when it went idle
}

var _ ports.MCPPool = (*Pool)(nil)

// NewPool returns an empty pool. Timers is required.
func NewPool(o Options) (*Pool, error) {
	if o.Timers == nil {
		return nil, errors.New("mcp.NewPool: Options.Timers is required")
	}
	o.Log = loggerOr(o.Log)
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.LeaseWait <= 0 {
		o.LeaseWait = 30 * time.Second
	}
	return &Pool{
		o: o, el: &elicitor{prompter: o.Prompter, log: o.Log}, cache: &toolCache{dir: o.CacheDir, log: o.Log},
		insts: map[string]*instance{}, changed: make(chan struct{}),
	}, nil
}

// instanceKey is the pool key: server name, resolved configuration and
// spawn directory. A remote server is not spawned anywhere: its key is
// its name and configuration (the URL among it), so turns in every
// checkout share one connection.
func instanceKey(s ports.MCPServerSpec) string {
	cfg, _ := json.Marshal(s.Server) // maps marshal with sorted keys
	dir := s.Dir
	if s.Server.Remote() {
		dir = ""
	}
	return strings.Join([]string{s.Name, string(cfg), dir}, "\x00")
}

// Lease implements ports.MCPPool.
func (p *Pool) Lease(ctx context.Context, spec ports.MCPServerSpec, lim ports.MCPLimits) (ports.ToolServer, func(), error) {
	key := instanceKey(spec)
	var deadline <-chan time.Time
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, nil, fmt.Errorf("lease MCP server %s: %w", spec.Name, ErrClosed)
		}
		p.sweepDeadLocked()
		if in := p.insts[key]; in != nil {
			in.leases++
			p.cancelIdleLocked(in)
			p.mu.Unlock()
			return p.await(ctx, in, lim)
		}
		if lim.MaxInstances > 0 && len(p.insts) >= lim.MaxInstances {
			if v := p.idlestLocked(); v != nil {
				p.removeLocked(v)
				p.mu.Unlock()
				p.o.Log.Info("stopping an idle MCP server to stay within mcp.max_instances", "server", v.spec.Name, "dir", v.spec.Dir)
				p.stopNow(v)
				continue
			}
			ch := p.changed
			p.mu.Unlock()
			if deadline == nil {
				deadline = p.o.Timers.After(p.o.LeaseWait)
			}
			select {
			case <-ch:
				continue
			case <-deadline:
				return nil, nil, fmt.Errorf("cannot start MCP server %s: mcp.max_instances = %d instances already run, all leased by turns, and none went idle within %s; raise mcp.max_instances or disable servers with mcp.servers.<name>.enable = false: %w",
					spec.Name, lim.MaxInstances, p.o.LeaseWait, ports.ErrMCPLimit)
			case <-ctx.Done():
				return nil, nil, fmt.Errorf("lease MCP server %s: %w", spec.Name, ctx.Err())
			}
		}
		in := &instance{key: key, spec: spec, ready: make(chan struct{}), leases: 1}
		p.insts[key] = in
		p.wg.Add(1)
		p.mu.Unlock()
		return p.start(ctx, in, lim)
	}
}

// start starts in for the lease that created it.
func (p *Pool) start(ctx context.Context, in *instance, lim ports.MCPLimits) (ports.ToolServer, func(), error) {
	defer p.wg.Done()
	c, err := start(ctx, in.spec, &p.o, p.el, p.cache, false)
	p.mu.Lock()
	in.c, in.err = c, err
	close(in.ready)
	if err != nil {
		if p.insts[in.key] == in {
			p.removeLocked(in)
		}
		p.mu.Unlock()
		return nil, nil, err
	}
	if p.closed {
		p.mu.Unlock()
		p.stopNow(in)
		return nil, nil, fmt.Errorf("lease MCP server %s: %w", in.spec.Name, ErrClosed)
	}
	p.mu.Unlock()
	p.o.Log.Debug("MCP server started", "server", in.spec.Name, "dir", in.spec.Dir, "pid", c.pid())
	return p.newLease(in), p.releaser(in, lim), nil
}

// await waits for in's start (another lease may be running it).
func (p *Pool) await(ctx context.Context, in *instance, lim ports.MCPLimits) (ports.ToolServer, func(), error) {
	select {
	case <-in.ready:
	case <-ctx.Done():
		p.release(in, lim)
		return nil, nil, fmt.Errorf("lease MCP server %s: %w", in.spec.Name, ctx.Err())
	}
	if in.err != nil {
		p.release(in, lim)
		return nil, nil, in.err
	}
	return p.newLease(in), p.releaser(in, lim), nil
}

func (p *Pool) releaser(in *instance, lim ports.MCPLimits) func() {
	var once sync.Once
	return func() { once.Do(func() { p.release(in, lim) }) }
}

// release ends one lease of in; the last one starts the idle countdown.
func (p *Pool) release(in *instance, lim ports.MCPLimits) {
	p.mu.Lock()
	defer p.mu.Unlock()
	in.leases--
	if in.leases > 0 {
		return
	}
	p.seq++
	in.since = p.seq
	p.broadcastLocked()
	if p.closed || p.insts[in.key] != in || in.c == nil {
		return // whoever removed it stops it
	}
	if in.c.dead() || lim.IdleShutdown <= 0 {
		p.removeLocked(in)
		p.stopAsyncLocked(in)
		return
	}
	token := make(chan struct{})
	in.idle = token
	after := p.o.Timers.After(lim.IdleShutdown)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case <-after:
			p.reap(in, token)
		case <-token:
		}
	}()
}

// reap stops in after its idle period, unless it was leased meanwhile.
func (p *Pool) reap(in *instance, token chan struct{}) {
	p.mu.Lock()
	if p.insts[in.key] != in || in.idle != token || in.leases > 0 {
		p.mu.Unlock()
		return
	}
	in.idle = nil
	p.removeLocked(in)
	p.mu.Unlock()
	p.o.Log.Debug("stopping idle MCP server", "server", in.spec.Name, "dir", in.spec.Dir)
	p.stopNow(in)
}

// CachedTools implements ports.MCPPool: the tools spec's instance listed
// the last time one was started (by any jp process), without starting it.
func (p *Pool) CachedTools(spec ports.MCPServerSpec) ([]llm.Tool, bool) {
	e, ok := p.cache.load(spec)
	return e.Tools, ok
}

// Stop implements ports.MCPPool.
func (p *Pool) Stop(ctx context.Context, spec ports.MCPServerSpec) error {
	p.mu.Lock()
	in := p.insts[instanceKey(spec)]
	if in == nil {
		p.mu.Unlock()
		return nil
	}
	if in.leases > 0 {
		p.mu.Unlock()
		return fmt.Errorf("MCP server %s is in use by a turn", spec.Name)
	}
	p.cancelIdleLocked(in)
	p.removeLocked(in)
	p.mu.Unlock()
	p.stopNow(in)
	return nil
}

// Shutdown implements ports.MCPPool: every instance is stopped, in
// parallel, and the pool's goroutines have ended when it returns nil.
func (p *Pool) Shutdown(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	var all []*instance
	for _, in := range p.insts {
		p.cancelIdleLocked(in)
		if in.c != nil {
			all = append(all, in)
		}
	}
	p.insts = map[string]*instance{}
	p.broadcastLocked()
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, in := range all {
		wg.Go(func() { p.stopNow(in) })
	}
	wg.Wait()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stop MCP servers: %w", ctx.Err())
	}
}

// InstanceInfo describes one instance of the pool.
type InstanceInfo struct {
	Name   string
	Dir    string
	PID    int
	Leases int
}

// Instances lists the running instances, by name and directory.
func (p *Pool) Instances() []InstanceInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []InstanceInfo
	for _, in := range p.insts {
		if in.c == nil {
			continue
		}
		out = append(out, InstanceInfo{Name: in.spec.Name, Dir: in.spec.Dir, PID: in.c.pid(), Leases: in.leases})
	}
	slices.SortFunc(out, func(a, b InstanceInfo) int { return strings.Compare(a.Name+"\x00"+a.Dir, b.Name+"\x00"+b.Dir) })
	return out
}

// sweepDeadLocked drops instances whose server died; the next lease of
// their key starts a fresh one.
func (p *Pool) sweepDeadLocked() {
	for _, in := range p.insts {
		if in.c != nil && in.c.dead() {
			p.o.Log.Info("MCP server exited; the next lease starts it again", "server", in.spec.Name, "dir", in.spec.Dir, "status", in.c.status())
			p.cancelIdleLocked(in)
			p.removeLocked(in)
			p.stopAsyncLocked(in)
		}
	}
}

// idlestLocked returns the instance idle the longest, or nil.
func (p *Pool) idlestLocked() *instance {
	var best *instance
	for _, in := range p.insts {
		if in.leases == 0 && in.c != nil && (best == nil || in.since < best.since) {
			best = in
		}
	}
	if best != nil {
		p.cancelIdleLocked(best)
	}
	return best
}

func (p *Pool) removeLocked(in *instance) {
	if p.insts[in.key] == in {
		delete(p.insts, in.key)
		p.broadcastLocked()
	}
}

func (p *Pool) cancelIdleLocked(in *instance) {
	if in.idle != nil {
		close(in.idle)
		in.idle = nil
	}
}

func (p *Pool) broadcastLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// stopAsyncLocked stops in on a goroutine the pool owns.
func (p *Pool) stopAsyncLocked(in *instance) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.stopNow(in)
	}()
}

func (p *Pool) stopNow(in *instance) {
	in.c.close()
	if p.afterStop != nil {
		p.afterStop(in.spec)
	}
}
