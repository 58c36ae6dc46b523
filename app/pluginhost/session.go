package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// maxInFlight bounds the waiting requests served at once; past it the
// loop stops reading until one finishes.
const maxInFlight = 64

// drainGrace is how long the loop keeps reading stdout after the plugin's
// process exited, for lines still in the pipe, before it closes it (a
// detached grandchild may hold it open).
const drainGrace = 2 * time.Second

// session is one run of a plugin: the message loop and what the plugin
// holds. The loop goroutine reads lines and routes them; a request that
// may wait (a prompt, a lock) and carries an id is served on its own
// goroutine, so answers may come out of order; the rest are served on
// the loop, in order. Writes to the plugin are queued in the outbox and
// written by one writer goroutine, so the loop never waits on a plugin
// that does not read: it goes on reading and handles exit whatever is
// still queued; a plugin that takes no line for
// plugins.write_timeout_secs is stopped.
//
//	spawn ─► init ─► (ready within ReadyTimeout) ─► requests ... ─┬─► exit ─► wait ─► done
//	                                                              ├─► EOF (crash) ───► done, exit 1
//	   SIGINT / Ctrl-C in a prompt ─► shutdown ─► (exit or EOF) ──┴─► kill after shutdown_timeout_secs
type session struct {
	h    *Host
	in   RunInput
	name string
	conn ports.PluginTransport
	log  *slog.Logger
	// res is the configuration the plugin was admitted under: the
	// checkout's for a single-scope plugin, the invocation's for a
	// multi-scope one.
	res   config.Resolved
	scope workspace.Scope
	// launch is the workspace jp was launched in ("" outside any).
	launch workspace.ID
	// single is the bootstrapped checkout of a single-scope plugin (nil
	// for multi scope); checkouts are those a multi-scope plugin addressed.
	single    *checkout
	checkouts checkouts

	locks heldLocks
	turns delegations

	// hctx is the handlers' context: cancelled when the loop ends. pctx,
	// the prompts', also ends when a shutdown begins.
	hctx     context.Context
	hcancel  context.CancelFunc
	pctx     context.Context
	pcancel  context.CancelFunc
	inflight sync.WaitGroup
	slots    chan struct{}

	// Loop goroutine only.
	ready bool
	exit  *plugin.Exit
	fatal error
	out   outputState

	// version is the protocol version spoken with the plugin: init's,
	// raised by a ready that asks for more. Protocol-1 plugins get the
	// protocol-1 answer shapes and are refused what only a multi-scope
	// plugin can use (version2Types).
	version atomic.Int32

	shutdownTimeout time.Duration
	writeTimeout    time.Duration
	outq            *outbox
	wcancel         context.CancelFunc
	stalled         atomic.Pointer[app.UserError] // set when the plugin was stopped for not reading
	stopOnce        sync.Once
	stopDone        chan struct{} // closed when the shutdown message went out
	interrupted     atomic.Bool
	noReady         atomic.Bool
	killMu          sync.Mutex
	killTimer       *time.Timer
}

func newSession(h *Host, in RunInput, conn ports.PluginTransport, b boot) *session {
	hctx, hcancel := context.WithCancel(context.Background())
	pctx, pcancel := context.WithCancel(hctx)
	s := &session{
		h: h, in: in, name: in.Binary.Name(), conn: conn, log: in.Log, res: b.res, scope: b.scope, launch: b.launch,
		checkouts: checkouts{m: map[workspace.Location]*checkout{}},
		locks:     heldLocks{m: map[string]func() error{}},
		turns:     delegations{running: map[string]*delegation{}},
		hctx:      hctx, hcancel: hcancel, pctx: pctx, pcancel: pcancel, slots: make(chan struct{}, maxInFlight), stopDone: make(chan struct{}),
		outq: newOutbox(),
	}
	if b.scope == workspace.ScopeSingle {
		s.single = s.checkouts.get(b.loc)
	}
	return s
}

// run sends init and serves the plugin until it exits.
func (s *session) run(ctx context.Context, init plugin.Init, shutdownTimeout time.Duration) error {
	s.shutdownTimeout = shutdownTimeout
	s.version.Store(int32(init.Version))
	defer s.conn.Close()
	wctx, wcancel := context.WithCancel(context.Background())
	s.wcancel = wcancel
	s.startWriter(wctx)
	readyTimer := time.AfterFunc(s.in.ReadyTimeout, func() {
		s.noReady.Store(true)
		_ = s.conn.Kill()
	})
	loopDone, watchDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(watchDone); s.watch(loopDone) }()

	if err := s.send(s.hctx, init); err != nil {
		s.log.Debug("plugin did not take init", "plugin", s.name, "error", err)
	}
	stopWatch := context.AfterFunc(ctx, s.shutdown) // after init: shutdown never comes first
	for {
		line, err := s.conn.Recv(context.Background())
		if errors.Is(err, ports.ErrLineTooLong) {
			s.fatal = &app.UserError{Err: err, Msg: fmt.Sprintf(
				"plugin %s wrote a line longer than %d MiB on stdout, which breaks the plugin protocol; it was stopped", s.name, plugin.MaxLine>>20)}
			_ = s.conn.Kill()
		}
		if err != nil || s.handleLine(line, readyTimer) || s.fatal != nil {
			break
		}
	}
	close(loopDone)
	<-watchDone
	readyTimer.Stop()
	if !stopWatch() {
		<-s.stopDone // a shutdown in progress finishes first
	}
	return s.finish()
}

// watch kills the plugin on abort (a second Ctrl-C), and ends a Recv
// that would wait forever: once the process has exited and drainGrace
// passed, the pipes are closed. It returns when the loop is done.
func (s *session) watch(loopDone <-chan struct{}) {
	abort, exited := s.in.Abort, s.conn.Exited()
	var grace <-chan time.Time
	for {
		select {
		case <-abort:
			abort = nil
			s.interrupted.Store(true)
			_ = s.conn.Kill()
		case <-exited:
			exited = nil
			t := time.NewTimer(drainGrace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			grace = nil
			_ = s.conn.Close()
		case <-loopDone:
			return
		}
	}
}

// finish waits for the process, stops the handlers, releases the locks,
// and says how the run ended.
func (s *session) finish() error {
	s.hcancel()
	s.stopWriter(s.wcancel)
	if s.fatal == nil && s.stalled.Load() == nil {
		_ = s.conn.CloseStdin()
	} else {
		_ = s.conn.Kill()
	}
	wctx, cancel := context.WithTimeout(context.Background(), s.shutdownTimeout)
	st, err := s.conn.Wait(wctx)
	cancel()
	if err != nil {
		_ = s.conn.Kill()
		st, _ = s.conn.Wait(context.Background())
	}
	s.killMu.Lock()
	if s.killTimer != nil {
		s.killTimer.Stop()
	}
	s.killMu.Unlock()
	s.inflight.Wait()
	s.locks.releaseAll(s.log, s.name)
	s.out.end(s.h.printer)
	if err := s.h.printer.Flush(); err != nil {
		s.log.Debug("flush output", "error", err)
	}

	path := s.in.Binary.Path
	switch {
	case s.stalled.Load() != nil:
		return s.stalled.Load()
	case s.fatal != nil:
		return s.fatal
	case s.noReady.Load() && !s.ready:
		return &app.UserError{Msg: fmt.Sprintf("plugin %s (%s) did not answer init with ready within %s: is it a jp plugin? (see docs/plugins.md)", s.name, path, s.in.ReadyTimeout)}
	case s.exit != nil && s.exit.Code == 0:
		// Also after shutdown: the plugin stopped cleanly when asked.
		return nil
	case s.interrupted.Load():
		return fmt.Errorf("plugin %s stopped: %w", s.name, ports.ErrInterrupted)
	case s.exit != nil:
		return &ExitError{Plugin: s.name, Code: s.exit.Code, Reason: s.exit.Reason}
	}
	return &app.UserError{Msg: fmt.Sprintf("plugin %s (%s) ended without sending exit (%s); its locks were released", s.name, path, st)}
}

// shutdown relays a graceful shutdown to the plugin (SIGINT, SIGTERM, or
// Ctrl-C in one of its prompts) and kills its process group when it has
// not exited within plugins.shutdown_timeout_secs. It is idempotent.
func (s *session) shutdown() {
	s.stopOnce.Do(func() {
		defer close(s.stopDone)
		s.interrupted.Store(true)
		s.pcancel()
		s.log.Info("plugin shutdown requested", "plugin", s.name)
		s.killMu.Lock()
		s.killTimer = time.AfterFunc(s.shutdownTimeout, func() {
			s.log.Info("plugin did not exit in time; killing it", "plugin", s.name)
			_ = s.conn.Kill()
		})
		s.killMu.Unlock()
		if err := s.send(context.Background(), plugin.Shutdown{}); err != nil {
			s.log.Debug("send shutdown", "plugin", s.name, "error", err)
		}
	})
}

// onReady handles ready: the handshake is done.
func (s *session) onReady(line []byte, readyTimer *time.Timer) {
	r, err := decode[plugin.Ready](s.h.codec, line)
	if err != nil {
		s.reply(errorReply(plugin.Header{Type: plugin.TypeReady}, err))
		return
	}
	if r.Protocol > plugin.ProtocolVersion {
		s.fatal = &app.UserError{Msg: fmt.Sprintf("plugin %s needs plugin protocol version %d, and this jp speaks version %d: update jp to run it",
			s.name, r.Protocol, plugin.ProtocolVersion)}
		return
	}
	if int32(r.Protocol) > s.version.Load() {
		s.version.Store(int32(r.Protocol))
	}
	if readyTimer.Stop() || !s.noReady.Load() {
		s.ready = true
	}
}

// onExit handles exit: the plugin is done. Its locks are released now.
func (s *session) onExit(hdr plugin.Header, line []byte) bool {
	e, err := decode[plugin.Exit](s.h.codec, line)
	if err != nil {
		s.reply(errorReply(hdr, err))
		return false
	}
	s.exit = &e
	s.locks.releaseAll(s.log, s.name)
	return true
}

// send encodes m, traces it and queues it for the writer; it never waits
// on the plugin. A secret prompt answer is traced with its value hidden.
func (s *session) send(_ context.Context, m plugin.Message) error {
	line, err := s.h.codec.Encode(m)
	if err != nil {
		return fmt.Errorf("%w: %w", errEncode, err)
	}
	if sa, ok := m.(secretAnswer); ok {
		if red, err := s.h.codec.Encode(sa.Redacted()); err == nil {
			s.trace("send", red)
		}
	} else {
		s.trace("send", line)
	}
	err = s.outq.put(line)
	if errors.Is(err, errOutboxFull) {
		s.stopStalled("does not read its stdin: " + err.Error())
	}
	return err
}

// errEncode marks a message jp could not encode: nothing was sent.
var errEncode = errors.New("jp could not encode its answer")

// reply sends an answer; a plugin that is gone is not an error of jp's.
func (s *session) reply(m plugin.Message) {
	if err := s.send(context.Background(), m); err != nil {
		s.log.Debug("plugin answer not delivered", "plugin", s.name, "type", m.MessageType(), "error", err)
	}
}

// levelTrace is adapters/logging.LevelTrace: protocol tracing at -vvv.
const levelTrace = slog.Level(-8)

// traceMax bounds one traced line.
const traceMax = 4 << 10

// trace logs one protocol line at trace level.
func (s *session) trace(dir string, line []byte) {
	if !s.log.Enabled(context.Background(), levelTrace) {
		return
	}
	text := string(line)
	if len(text) > traceMax {
		text = text[:traceMax] + "…"
	}
	s.log.Log(context.Background(), levelTrace, "plugin message", "plugin", s.name, "dir", dir, "line", text)
}
