package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Delegated turns (docs/plugins.md): query runs the turn engine for the plugin in
// the addressed checkout, on a goroutine the session owns (counted in
// inflight, so the run ends only after it), holding the conversation lock.
// Its output reaches the plugin as event pushes tagged with the query's
// id; interrupt stops it as [s] would; tool approvals wait for respond.
//
//	query ─► lock ─► last-root check ─┬─► error {last_root}     (refused: no turn)
//	                                  └─► query_started ─► event ... ─► query_complete {outcome}

// delegation is one running delegated turn. It is the turn's
// ports.Interrupts: there is no terminal, so the only interrupt is a stop
// (an interrupt request, or the plugin's shutdown), seen by the engine as
// a graceful shutdown: what the turn has is saved.
type delegation struct {
	key  string // lockKey of the conversation
	conv string
	id   string // the query's id

	stop     chan struct{}
	stopOnce sync.Once

	mu        sync.Mutex
	approvals map[string]chan bool // call_id -> the answer
}

// stopNow stops the turn; idempotent.
func (d *delegation) stopNow() { d.stopOnce.Do(func() { close(d.stop) }) }

// await registers a pending approval for callID.
func (d *delegation) await(callID string) chan bool {
	ch := make(chan bool, 1)
	d.mu.Lock()
	d.approvals[callID] = ch
	d.mu.Unlock()
	return ch
}

func (d *delegation) forget(callID string) {
	d.mu.Lock()
	delete(d.approvals, callID)
	d.mu.Unlock()
}

// answer delivers a respond; false when no approval waits for callID.
func (d *delegation) answer(callID string, ok bool) bool {
	d.mu.Lock()
	ch, found := d.approvals[callID]
	delete(d.approvals, callID)
	d.mu.Unlock()
	if found {
		ch <- ok
	}
	return found
}

// ports.Interrupts of a delegated turn.
func (d *delegation) Push(string) ports.InterruptScope { return noScope{} }
func (d *delegation) Escalate()                        {}
func (d *delegation) Handled()                         {}
func (d *delegation) Shutdown() <-chan struct{}        { return d.stop }
func (d *delegation) Progress(ports.Progress)          {}
func (d *delegation) SetCooldown(time.Duration)        {}
func (d *delegation) Countdown() bool                  { return false }

// noScope is an interrupt scope no Ctrl-C reaches.
type noScope struct{}

func (noScope) C() <-chan struct{} { return nil }
func (noScope) Pop()               {}

// delegations are the running delegated turns of a plugin run, one per
// conversation of a checkout.
type delegations struct {
	mu      sync.Mutex
	running map[string]*delegation
}

func (ds *delegations) start(d *delegation) error {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if _, busy := ds.running[d.key]; busy {
		return fmt.Errorf("a delegated turn is already running on conversation %s: wait for its query_complete, or interrupt it", d.conv)
	}
	ds.running[d.key] = d
	return nil
}

func (ds *delegations) done(d *delegation) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.running[d.key] == d {
		delete(ds.running, d.key)
	}
}

func (ds *delegations) get(key string) *delegation {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.running[key]
}

// busy is the error for a request that needs the lock of a conversation
// this plugin's delegated turn holds (instead of waiting for our own
// lock as if another process held it).
func (ds *delegations) busy(key string) error {
	if d := ds.get(key); d != nil {
		return fmt.Errorf("conversation %s is busy with this plugin's delegated turn %s: try again after its query_complete", d.conv, d.id)
	}
	return nil
}

// answer finds the turn waiting on callID and answers it.
func (ds *delegations) answer(callID string, ok bool) bool {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	for _, d := range ds.running {
		if d.answer(callID, ok) {
			return true
		}
	}
	return false
}

// query starts a delegated turn and answers nothing itself: the turn's
// goroutine sends query_started (or the refusal), the pushes, and
// query_complete.
func (s *session) query(_ context.Context, c *checkout, req plugin.Query) (plugin.Message, error) {
	if req.ID == "" {
		return nil, errors.New(`query needs an "id": the turn's events and its query_complete are tagged with it`)
	}
	d := &delegation{key: lockKey(c, req.Conversation), conv: req.Conversation, id: req.ID,
		stop: make(chan struct{}), approvals: map[string]chan bool{}}
	if err := s.turns.start(d); err != nil {
		return nil, err
	}
	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
		last := s.runDelegated(c, req, d)
		// Done before the last answer goes out: once the plugin has read
		// query_complete, the conversation takes a new query.
		s.turns.done(d)
		s.reply(last)
	}()
	return nil, nil
}

// runDelegated runs the turn, pushing its events, and returns the last
// answer: query_complete, or the error that kept the turn from starting.
func (s *session) runDelegated(c *checkout, req plugin.Query, d *delegation) plugin.Message {
	hdr := plugin.Header{Type: plugin.TypeQuery, ID: req.ID}
	// A shutdown of the plugin stops the turn the way interrupt does.
	stopOnShutdown := context.AfterFunc(s.pctx, d.stopNow)
	defer stopOnShutdown()
	ctx := s.hctx
	res, err := s.configFor(ctx, c)
	if err != nil {
		return errorReply(hdr, err)
	}
	if s.scope == workspace.ScopeMulti && !c.loc.IsDefault() {
		// A turn loads its checkout, as jp query does: it is recorded in the
		// roots registry (last_used). The default workspace has none.
		if err := s.h.reg.Register(ctx, ports.Found{ID: c.loc.ID, Root: c.loc.Root}); err != nil {
			return errorReply(hdr, err) // it names the checkout
		}
	}
	q := s.h.query.Delegate(&pushPrinter{s: s, id: req.ID}, d, app.DelegateHooks{
		OnEvent: func(ev conversation.Event) { s.pushEvent(req.ID, ev) },
		Approve: s.approver(d, res.Config.Plugins.RespondTimeout()),
	})
	if err := conversation.CheckSize("the query content", req.Content, res.Config.Conversation.Limits.MessageBytes, "conversation.limits.message_bytes"); err != nil {
		return errorReply(hdr, err)
	}
	end, err := q.RunDelegated(ctx, app.DelegatedInput{
		Loc: c.loc, Config: res.Config, Conversation: conversation.ID(req.Conversation),
		Content: req.Content, Schema: req.Schema, Attachments: req.Attachments, Author: "plugin:" + s.name, Expected: req.ExpectedLastRoot,
		LockHeld: s.locks.holds(d.key),
		Started:  func() { s.reply(plugin.QueryStarted{ID: req.ID, Conversation: req.Conversation}) },
	})
	if errors.Is(err, app.ErrNotStarted) {
		return errorReply(hdr, notStartedCause(err))
	}
	done := plugin.QueryComplete{ID: req.ID, Conversation: req.Conversation, Outcome: outcomeOf(end, err)}
	if done.Outcome == conversation.OutcomeError && err != nil {
		done.Error = err.Error()
	}
	return done
}

// notStartedCause is the cause of a turn that did not start (the error
// RunDelegated joined with ErrNotStarted).
func notStartedCause(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if e != app.ErrNotStarted {
				return e
			}
		}
	}
	return err
}

// outcomeOf is query_complete's outcome.
func outcomeOf(end turn.End, err error) conversation.Outcome {
	switch {
	case err != nil && errors.Is(err, ports.ErrInterrupted):
		return conversation.OutcomeStopped
	case err != nil:
		return conversation.OutcomeError
	case end == turn.EndCompleted:
		return conversation.OutcomeCompleted
	case end == turn.EndAborted:
		return conversation.OutcomeAborted
	}
	return conversation.OutcomeStopped
}

// approver pushes a tool approval question and waits for its respond,
// rejecting the call after timeout (plugins.respond_timeout_secs).
func (s *session) approver(d *delegation, timeout time.Duration) func(context.Context, llm.ToolCall, string) (bool, string, error) {
	return func(ctx context.Context, call llm.ToolCall, diff string) (bool, string, error) {
		ch := d.await(call.ID)
		defer d.forget(call.ID)
		args := call.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		s.push(d.id, plugin.ApprovalData{Type: plugin.DataToolApproval, CallID: call.ID, Name: call.Name, Arguments: args, Diff: diff}, plugin.RespondToolApproval)
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case ok := <-ch:
			return ok, "", nil
		case <-t.C:
			return false, fmt.Sprintf("The tool call was rejected: nobody answered its approval within %s.", timeout), nil
		case <-d.stop:
			return false, "", ports.ErrInterrupted
		case <-ctx.Done():
			return false, "", ctx.Err()
		}
	}
}

// push sends one event push with the query's id.
func (s *session) push(id string, data any, respond string) {
	b, err := json.Marshal(data)
	if err != nil {
		s.log.Warn("encode delegated turn event", "plugin", s.name, "error", err)
		return
	}
	s.reply(plugin.Event{ID: id, Data: b, Respond: respond})
}

// pushEvent pushes an event of a delegated turn in its stored form.
func (s *session) pushEvent(id string, ev conversation.Event) {
	b, err := s.h.events.EncodeEvent(ev)
	if err != nil {
		s.log.Warn("encode delegated turn event", "plugin", s.name, "error", err)
		return
	}
	s.push(id, b, "")
}

// interrupt stops the delegated turn running on a conversation: the
// answer is interrupted, then the turn's query_complete with outcome
// stopped.
func (s *session) interrupt(_ context.Context, c *checkout, req plugin.Interrupt) (plugin.Message, error) {
	d := s.turns.get(lockKey(c, req.Conversation))
	if d == nil {
		return nil, fmt.Errorf("no delegated turn is running on conversation %s in %s", req.Conversation, c.loc.Root)
	}
	// Answered before the stop, so that interrupted comes before the
	// turn's query_complete.
	s.reply(plugin.Interrupted{ID: req.ID})
	d.stopNow()
	return nil, nil
}

// respond answers a pushed tool approval. It has no answer of its own.
func (s *session) respond(_ context.Context, req plugin.Respond) (plugin.Message, error) {
	if !s.turns.answer(req.CallID, req.Action == "approve") {
		return nil, fmt.Errorf("no tool approval is waiting for call_id %s (answered already, timed out, or its turn ended)", req.CallID)
	}
	return nil, nil
}

// pushPrinter is a delegated turn's printer: streamed text and reasoning
// become chat_response_delta pushes. Everything else a terminal would
// show is in the conversation events the turn pushes (tool calls and
// results) or in query_complete (errors).
type pushPrinter struct {
	s  *session
	id string
}

func (p *pushPrinter) Write(ch ports.Channel, text string) {
	switch ch {
	case ports.ChannelContent, ports.ChannelReasoning:
		p.s.push(p.id, plugin.DeltaData{Type: plugin.DataChatResponseDelta, Text: text, Reasoning: ch == ports.ChannelReasoning}, "")
	}
}
func (p *pushPrinter) EndBlock(ports.Channel) {}

// Usage is left out: the turn_end event pushed to the plugin carries it.
func (p *pushPrinter) Usage(ports.UsageReport)   {}
func (p *pushPrinter) Wait(string) (stop func()) { return func() {} }
func (p *pushPrinter) Flush() error              { return nil }
func (p *pushPrinter) Suspend() (resume func())  { return func() {} }
