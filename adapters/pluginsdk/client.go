// Package pluginsdk is the plugin side of jp's command plugin protocol, for
// plugins written in Go: the handshake, typed requests with correlation
// IDs (safe to call from many goroutines at once), prompts that return an
// answer or an outcome, and graceful shutdown.
//
//	func main() {
//		pluginsdk.Main(manifest, func(ctx context.Context, c *pluginsdk.Client) error {
//			convs, err := c.ListConversations(ctx)
//			...
//			return c.Print(fmt.Sprintf("%d conversations\n", len(convs)))
//		})
//	}
//
// Every request carries an id, so answers may arrive in any order. When
// jp relays a shutdown (the user pressed Ctrl-C), the context given to the
// run function is cancelled and a pending prompt returns ErrShutdown; the
// run function returns, and Main sends exit. See docs/plugins.md for the
// protocol itself.
//
// # Single and multi scope
//
// A single-scope plugin (the default) works on the workspace jp was
// launched in: it calls the Client's methods, and its requests carry no
// workspace. A multi-scope plugin (manifest workspace_scope "multi",
// docs/plugins.md) is told no workspace: it lists them with ListWorkspaces and names a
// checkout on every data and mutation request through an addressed view,
//
//	ws, err := c.ListWorkspaces(ctx)
//	...
//	at := c.At(workspace.Ref{ID: ws[0].ID, Root: ws[0].Roots[0].Path})
//	convs, err := at.ListConversations(ctx)
//
// A Checkout has the same request methods as the Client. ListWorkspaces,
// Respond, prompts and output name no workspace and are the Client's only.
//
// # Delegated turns
//
// Query (Client.Query, or Checkout.Query addressed) starts a turn and
// returns a QueryStream once jp answered query_started; a refusal, such
// as the last-root precondition (docs/plugins.md), is a HostError whose
// LastRoot is the stored record. The stream's Next returns the turn's
// event pushes in order (stored conversation events, chat_response_delta
// pieces, tool_approval questions to answer with Respond) and io.EOF
// after query_complete, whose Result it then holds:
//
//	s, err := at.Query(ctx, plugin.Query{Conversation: id, Content: "hi"})
//	if err != nil { ... }
//	defer s.Close()
//	for {
//		ev, err := s.Next(ctx)
//		if errors.Is(err, io.EOF) {
//			break // s.Result().Outcome: completed, stopped, aborted, error
//		}
//		...
//	}
//
// The reader loop routes pushes to their stream by id without ending the
// query; streams own no goroutine, and the end of the connection ends
// them all with ErrClosed.
package pluginsdk

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/jpcli/jp/adapters/pluginwire"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/internal/jsonl"
)

// Errors of a Client.
var (
	// ErrDescribed is returned by Start when jp asked the plugin to describe
	// itself: the description was sent, and the plugin should exit 0.
	ErrDescribed = errors.New("pluginsdk: described; exit now")
	// ErrShutdown is returned by a prompt that was pending when jp asked
	// the plugin to shut down: it will not be answered.
	ErrShutdown = errors.New("pluginsdk: jp asked the plugin to shut down")
	// ErrClosed is returned by requests once jp closed the connection.
	ErrClosed = errors.New("pluginsdk: the connection to jp is closed")
)

// HostError is jp's error answer to a request.
type HostError = plugin.Error

// Client is a plugin's connection to jp. Its methods are safe for
// concurrent use.
type Client struct {
	init plugin.Init

	wmu sync.Mutex
	w   io.Writer
	buf []byte

	next atomic.Uint64

	mu      sync.Mutex
	pending map[string]*call
	closed  error

	ctx        context.Context
	cancel     context.CancelFunc
	shutdown   chan struct{}
	readerDone chan struct{}
}

// call is one request waiting for its answer, or a query whose stream
// takes every line jp sends with its id until the final one.
type call struct {
	ch     chan answer
	prompt bool
	stream *QueryStream
}

// answer is a line jp sent for a call, or why none will come.
type answer struct {
	typ  string
	line []byte
	err  error
}

// Start performs the handshake on r (jp's messages) and w (the plugin's):
// it reads the first message; for describe it answers with m and returns
// ErrDescribed; for init it answers ready declaring m's protocol version,
// and returns a Client whose Context ends when jp asks for shutdown or
// closes the connection.
func Start(ctx context.Context, r io.Reader, w io.Writer, m plugin.Manifest) (*Client, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	line, err := readLine(br)
	if err != nil {
		return nil, fmt.Errorf("pluginsdk: read the first message from jp: %w", err)
	}
	hdr, err := pluginwire.DecodeHeader(line)
	if err != nil {
		return nil, fmt.Errorf("pluginsdk: first message from jp: %w", err)
	}
	c := &Client{w: w, pending: map[string]*call{}, shutdown: make(chan struct{}), readerDone: make(chan struct{})}
	switch hdr.Type {
	case plugin.TypeDescribe:
		if err := c.send(plugin.Description{Manifest: m}); err != nil {
			return nil, err
		}
		return nil, ErrDescribed
	case plugin.TypeInit:
	default:
		return nil, fmt.Errorf("pluginsdk: expected init or describe from jp, got %q", hdr.Type)
	}
	if err := json.Unmarshal(line, &c.init); err != nil {
		return nil, fmt.Errorf("pluginsdk: decode init: %w", err)
	}
	// init says the version jp took from the manifest file, 1 when the
	// binary has none; the ready below declares the version this plugin
	// needs, which raises it (docs/plugins.md). A jp that cannot speak it
	// answers the requests that need it with an error naming the version.
	if err := c.send(plugin.Ready{Protocol: m.ProtocolVersion}); err != nil {
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(ctx)
	go c.read(br)
	return c, nil
}

// Init is jp's init message: args, options, workspace, configuration.
func (c *Client) Init() plugin.Init { return c.init }

// Args are the command-line arguments after the plugin's command path.
func (c *Client) Args() []string { return c.init.Args }

// Context ends when jp asks for shutdown or the connection closes.
func (c *Client) Context() context.Context { return c.ctx }

// ShutdownRequested is closed when jp asked the plugin to shut down.
func (c *Client) ShutdownRequested() <-chan struct{} { return c.shutdown }

// Wait blocks until the connection to jp is closed (after Exit, or when
// jp goes away).
func (c *Client) Wait() { <-c.readerDone }

// send writes one message line.
func (c *Client) send(m plugin.Message) error {
	line, err := pluginwire.Encode(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.buf = append(append(c.buf[:0], line...), '\n')
	if _, err := c.w.Write(c.buf); err != nil {
		return fmt.Errorf("pluginsdk: write to jp: %w", err)
	}
	return nil
}

// read delivers jp's lines to the calls waiting for them.
func (c *Client) read(br *bufio.Reader) {
	defer close(c.readerDone)
	for {
		line, err := readLine(br)
		if err != nil {
			c.closeAll(fmt.Errorf("%w (%v)", ErrClosed, err))
			return
		}
		hdr, err := pluginwire.DecodeHeader(line)
		if err != nil {
			continue // jp writes valid messages; ignore what is not one
		}
		if hdr.Type == plugin.TypeShutdown {
			c.onShutdown()
			continue
		}
		if hdr.ID == "" {
			continue // an error about a message without an id (print, log)
		}
		c.mu.Lock()
		cl := c.pending[hdr.ID]
		switch {
		case cl == nil:
		case cl.stream != nil:
			// A query: pushes keep it pending, its final answer ends it.
			if isFinal(hdr.Type) {
				delete(c.pending, hdr.ID)
			}
		case hdr.Type == plugin.TypeEvent:
			cl = nil // a push is never the answer to another request
		default:
			delete(c.pending, hdr.ID)
		}
		c.mu.Unlock()
		switch {
		case cl == nil:
		case cl.stream != nil:
			cl.stream.deliver(hdr.Type, line)
		default:
			cl.ch <- answer{typ: hdr.Type, line: line}
		}
	}
}

// onShutdown ends the context and the pending prompts: jp answers them no
// more.
func (c *Client) onShutdown() {
	select {
	case <-c.shutdown:
		return
	default:
	}
	close(c.shutdown)
	c.mu.Lock()
	for id, cl := range c.pending {
		if cl.prompt {
			cl.ch <- answer{err: ErrShutdown}
			delete(c.pending, id)
		}
	}
	c.mu.Unlock()
	c.cancel()
}

// closeAll fails every pending call: jp closed the connection.
func (c *Client) closeAll(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = err
	for id, cl := range c.pending {
		if cl.stream != nil {
			cl.stream.finish(nil, err)
		} else {
			cl.ch <- answer{err: err}
		}
		delete(c.pending, id)
	}
	c.cancel()
}

// newID returns a fresh correlation ID.
func (c *Client) newID() string { return strconv.FormatUint(c.next.Add(1), 36) }

// roundTrip sends req (whose id is id) and decodes the answer of type
// want into out. An error answer is returned as a HostError.
func (c *Client) roundTrip(ctx context.Context, id string, req plugin.Message, want string, out any, prompt bool) error {
	cl := &call{ch: make(chan answer, 1), prompt: prompt}
	if err := c.post(id, cl, req); err != nil {
		return err
	}
	select {
	case a := <-cl.ch:
		return c.decode(req, a, want, out)
	case <-ctx.Done():
	}
	// The answer, shutdown or the end of the connection may have raced
	// the cancellation (they cancel the run's context themselves): report
	// them rather than the context.
	select {
	case a := <-cl.ch:
		return c.decode(req, a, want, out)
	default:
	}
	c.forget(id)
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	switch {
	case prompt && isClosed(c.shutdown):
		return ErrShutdown
	case closed != nil:
		return closed
	}
	return ctx.Err()
}

// post registers cl to take jp's answers to id, then sends req. It fails
// without sending once the connection is closed, and for a prompt once jp
// asked for shutdown.
func (c *Client) post(id string, cl *call, req plugin.Message) error {
	c.mu.Lock()
	err := c.closed
	if err == nil && cl.prompt && isClosed(c.shutdown) {
		err = ErrShutdown
	}
	if err != nil {
		c.mu.Unlock()
		return err
	}
	c.pending[id] = cl
	c.mu.Unlock()
	if err := c.send(req); err != nil {
		c.forget(id)
		return err
	}
	return nil
}

// decode reads answer a to req into out.
func (c *Client) decode(req plugin.Message, a answer, want string, out any) error {
	switch {
	case a.err != nil:
		return a.err
	case a.typ == plugin.TypeError:
		var he HostError
		if err := json.Unmarshal(a.line, &he); err != nil {
			return fmt.Errorf("pluginsdk: decode error from jp: %w", err)
		}
		return he
	case a.typ != want:
		return fmt.Errorf("pluginsdk: %s answered with %s, not %s", req.MessageType(), a.typ, want)
	}
	if out == nil {
		return nil
	}
	if err := pluginwire.Unmarshal(a.line, out); err != nil {
		return fmt.Errorf("pluginsdk: decode %s: %w", want, err)
	}
	return nil
}

func (c *Client) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// readLine reads one line of at most plugin.MaxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := jsonl.ReadLine(br, nil, plugin.MaxLine)
	switch {
	case errors.Is(err, jsonl.ErrTooLong):
		return nil, fmt.Errorf("a line from jp is longer than %d bytes", plugin.MaxLine)
	case err != nil:
		return nil, err
	}
	return line, nil
}
