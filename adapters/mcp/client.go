package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/ports"
)

// conn is one running server instance: the MCP client session over a
// child process's stdio (proc set) or over Streamable HTTP to a remote
// server (proc nil).
type conn struct {
	name    string
	dir     string
	spec    ports.MCPServerSpec
	cache   *toolCache
	log     *slog.Logger
	proc    *process
	session *sdk.ClientSession
	// ended is closed when a remote session's connection ended (the
	// session's Wait returned); nil for a subprocess.
	ended chan struct{}
	// broken is set when the session failed under a call: the next lease
	// starts a fresh instance even if the process still runs.
	broken atomic.Bool
	// pending counts the tool calls in flight: a server with none is
	// signalled sooner when it stops (IdleStopGrace).
	pending atomic.Int32
	// life ends when the instance stops; elicitation prompts use it.
	life   context.Context
	cancel context.CancelFunc
}

// start connects to spec's server: it spawns a command and runs the MCP
// initialize handshake over its stdio, or connects to a url over
// Streamable HTTP. ctx bounds the handshake only; the instance lives
// until close.
//
// login (remote servers) ignores stored OAuth tokens and runs the login
// flow when the server asks for one (jp mcp login).
func start(ctx context.Context, spec ports.MCPServerSpec, o *Options, el *elicitor, cache *toolCache, login bool) (*conn, error) {
	srv := spec.Server
	if srv.Remote() && len(srv.Command) > 0 {
		return nil, fmt.Errorf("MCP server %s sets both command and url: keep one in [mcp.servers.%s]", spec.Name, spec.Name)
	}
	life, cancel := context.WithCancel(context.Background())
	c := &conn{name: spec.Name, dir: spec.Dir, spec: spec, cache: cache, log: o.Log, life: life, cancel: cancel}
	orders := &orderRecorder{}
	client := sdk.NewClient(&sdk.Implementation{Name: "jp", Version: o.ClientVersion}, &sdk.ClientOptions{
		Logger: o.Log,
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			ctx, stop := mergeCancel(ctx, life)
			defer stop()
			return el.elicit(ctx, spec.Name, req.Params, orders)
		},
		// The server's tools changed: the cached list is stale. The next
		// turn starts the server and lists them again.
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { cache.forget(spec) },
	})
	if srv.Remote() {
		return c.connectRemote(ctx, client, orders, o, login)
	}
	proc, err := spawn(spec.Name, srv, spec.Dir, o.Log)
	if err != nil {
		cancel()
		return nil, err
	}
	c.proc = proc
	// No MCP roots are offered (the roots feature is deprecated): the
	// server learns the checkout from its working directory and from
	// the paths its configuration passes (docs/mcp.md).
	tr := &orderTransport{inner: &sdk.IOTransport{Reader: proc.stdout, Writer: proc.stdin}, rec: orders}
	hctx, hcancel := context.WithTimeout(ctx, StartTimeout)
	defer hcancel()
	session, err := client.Connect(hctx, tr, nil)
	if err != nil {
		cancel()
		proc.stop(StopGrace)
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("start MCP server %s: %w", spec.Name, ctx.Err())
		case hctx.Err() != nil:
			return nil, fmt.Errorf("MCP server %s did not answer the MCP handshake within %s; check mcp.servers.%s.command (%s)",
				spec.Name, StartTimeout, spec.Name, proc.status())
		}
		return nil, fmt.Errorf("MCP server %s failed to start (mcp.servers.%s.command = %s): %v (%s)",
			spec.Name, spec.Name, commandLine(spec.Server), err, proc.status())
	}
	c.session = session
	return c, nil
}

// dead reports whether the instance can no longer serve: its process
// exited, its remote connection ended, or its session broke.
func (c *conn) dead() bool { return c.broken.Load() || c.gone() }

// gone reports whether the server itself went away (its process exited
// or its connection ended), as opposed to answering with an error.
func (c *conn) gone() bool {
	if c.proc != nil {
		return c.proc.done()
	}
	select {
	case <-c.ended:
		return true
	default:
		return false
	}
}

// pid is the server process's ID; 0 for a remote server.
func (c *conn) pid() int {
	if c.proc == nil {
		return 0
	}
	return c.proc.pid()
}

// status describes how the server ended (a process's exit and last
// stderr lines), or the remote endpoint.
func (c *conn) status() string {
	if c.proc == nil {
		return "remote server " + c.spec.Server.RedactedURL()
	}
	return c.proc.status()
}

// close stops the instance: ends its prompts, stops its process (close
// stdin, grace, SIGTERM, SIGKILL) and closes the session. A remote
// session is closed (the transport ends it with an HTTP DELETE).
func (c *conn) close() {
	grace := StopGrace
	if c.pending.Load() == 0 {
		grace = IdleStopGrace
	}
	c.cancel()
	if c.proc != nil {
		c.proc.stop(grace)
	}
	_ = c.session.Close()
	if c.ended != nil {
		<-c.ended
	}
}

// mergeCancel returns a context that ends when either ctx or other ends.
func mergeCancel(ctx, other context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(other, cancel)
	return ctx, func() { stop(); cancel() }
}

func commandLine(s config.MCPServer) string {
	b, _ := json.Marshal(s.Command)
	return string(b)
}

// orderTransport records the property order of elicitation schemas as
// they arrive: the SDK hands the handler a map, and questions should
// follow the order the server wrote.
type orderTransport struct {
	inner sdk.Transport
	rec   *orderRecorder
}

func (t *orderTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &orderConn{Connection: c, rec: t.rec}, nil
}

type orderConn struct {
	sdk.Connection
	rec *orderRecorder
}

// noteMessage notes the elicitations of one JSON-RPC message or batch as
// it arrived on the wire: a request, or a multi round-trip result
// carrying them as inputRequests.
func (r *orderRecorder) noteMessage(raw []byte) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(raw, &batch) == nil {
			for _, m := range batch {
				r.noteMessage(m)
			}
		}
		return
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	if m.Method == methodElicit {
		r.note(m.Params)
	}
	if len(m.Result) > 0 {
		r.noteInputRequests(m.Result)
	}
}

// noteInputRequests notes the elicitations a multi round-trip result
// (protocol 2026-07-28) carries as inputRequests.
func (r *orderRecorder) noteInputRequests(result json.RawMessage) {
	if !bytes.Contains(result, []byte(`"inputRequests"`)) {
		return
	}
	var res struct {
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
	}
	if json.Unmarshal(result, &res) == nil {
		for _, ir := range res.InputRequests {
			if ir.Method == methodElicit {
				r.note(ir.Params)
			}
		}
	}
}

func (c *orderConn) Read(ctx context.Context) (msg jsonrpc.Message, err error) {
	msg, err = c.Connection.Read(ctx)
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == methodElicit {
			c.rec.note(m.Params)
		}
	case *jsonrpc.Response:
		c.rec.noteInputRequests(m.Result)
	}
	return msg, err
}

const methodElicit = "elicitation/create"

// orderRecorder maps an elicitation (its message and property names) to
// the order its properties had on the wire.
type orderRecorder struct {
	mu     sync.Mutex
	orders map[string][]string
}

func (r *orderRecorder) note(params json.RawMessage) {
	var p struct {
		Message         string `json:"message"`
		RequestedSchema struct {
			Properties json.RawMessage `json:"properties"`
		} `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	names := objectKeys(p.RequestedSchema.Properties)
	if len(names) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.orders == nil || len(r.orders) > 64 {
		r.orders = map[string][]string{}
	}
	r.orders[orderKey(p.Message, names)] = names
}

// order returns the recorded order of names for message, or nil.
func (r *orderRecorder) order(message string, names []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.orders[orderKey(message, names)]
}

func orderKey(message string, names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	return message + "\x00" + strings.Join(s, "\x00")
}

// objectKeys returns the keys of a JSON object in the order they appear.
func objectKeys(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}

// loggerOr returns l, or a logger that discards everything.
func loggerOr(l *slog.Logger) *slog.Logger {
	if l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
}
