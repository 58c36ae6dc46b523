package ports

import (
	"context"
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
	// Stop stops spec's instance now unless a lease holds it (jp mcp
	// check starts, lists and stops each server).
	Stop(ctx context.Context, spec MCPServerSpec) error
	// Shutdown stops every instance (close stdin, a grace period, then
	// SIGTERM and SIGKILL to its process group) and refuses later leases.
	Shutdown(ctx context.Context) error
}
