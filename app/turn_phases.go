package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/interrupt"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/ports"
)

// turnState holds the per-turn pieces, rebuilt for every Turn: the phase
// machine (with its retry budget) and the turn's tools.
type turnState struct {
	// overflowRetried is set once the turn retried a request the provider
	// refused for exceeding the window (compactOnOverflow).
	overflowRetried bool
	m               *turn.Machine
	tools           ports.ToolServer
	previews        map[string]cachedPreview // by call ID (toolline.go)
	offered         []llm.Tool
	// inBlock is the printer channel of the block being streamed.
	inBlock ports.Channel
	// retryHint is the provider's Retry-After for the last failure.
	retryHint time.Duration
	// deltas counts streamed deltas, for scripted interrupts.
	deltas int
	// shutdown is set when a graceful shutdown ended the turn.
	shutdown bool
	// respond is what the user composed with [r] on the menu a Ctrl-C at a
	// permission prompt opened: every call of the batch gets it.
	respond string
	// schema is the turn's structured-output schema, sent on every call.
	schema json.RawMessage
	// step is what the current provider call said about itself.
	step turn.Step
	// reasoningShown counts the characters of the reasoning block shown
	// (style.reasoning.display = N); -1 once it was cut.
	reasoningShown int
}

// errShutdown reports a turn ended by graceful shutdown (escalation or
// SIGTERM); the CLI exits 130.
var errShutdown = fmt.Errorf("stopped by the user: %w", ports.ErrInterrupted)

// runTurnPhases drives one Turn through its phases (Idle -> Streaming ->
// Executing -> Streaming ... -> Complete) and says how it ended. Events are
// appended as they happen; a fatal failure is returned as an error after
// turn_end {outcome: error} is recorded.
func (q *Query) runTurnPhases(ctx context.Context, rs *runState, req turn.Request) (turn.End, error) {
	stopMCP := q.waitFor(waitMCPLabel(rs.cfg))
	tools, releaseTools, err := q.tools.Open(ctx, rs.cfg, rs.loc.Root)
	if err != nil {
		stopMCP()
		return turn.EndUnknown, err
	}
	defer releaseTools()
	offered, err := tools.Tools(ctx)
	stopMCP()
	if err != nil {
		return turn.EndUnknown, err
	}
	offered = append(offered, userTools(rs.cfg, offered)...)
	rs.turns++
	defer q.gitCommitTurn(ctx, rs)
	ts := &turnState{m: turn.New(rs.cfg.Assistant.Request.MaxRetries), tools: tools, offered: offered, schema: req.Schema}
	req.ContinueOnLength = rs.cfg.Query.ContinueOnLength

	// The turn scope covers the gaps between streaming and tools: a
	// Ctrl-C there stops the turn, saving what it has.
	scope := q.interrupts.Push("turn")
	defer scope.Pop()

	queue := ts.m.Start(req)
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		if a.Kind != turn.ActionEnd && a.Kind != turn.ActionPersist && q.gapInterrupted(ctx, scope) {
			ts.shutdown = ctx.Err() != nil || isClosed(q.interrupts.Shutdown())
			queue = append(queue[:0], ts.m.Stop(cancelledResults(rs, a.Calls))...)
			continue
		}
		switch a.Kind {
		case turn.ActionPersist:
			// The persists the machine asks for in a row are one write.
			var evs []conversation.Event
			evs, queue = takePersists(a, queue)
			if err := q.persistRun(ctx, rs, ts, evs, queue); err != nil {
				return turn.EndUnknown, err
			}
		case turn.ActionRequest:
			queue = append(queue, q.stream(ctx, rs, ts)...)
		case turn.ActionRetry:
			d := max(backoff(a.Attempt), ts.retryHint)
			q.chromeNote(fmt.Sprintf("The model's service failed; retrying in %s (attempt %d of %d).", d.Round(time.Millisecond), a.Attempt, rs.cfg.Assistant.Request.MaxRetries))
			if !q.waitRetry(ctx, scope, d) {
				// Ctrl-C (or shutdown) during the wait: stop, saving what
				// the turn has.
				ts.shutdown = isClosed(q.interrupts.Shutdown()) || ctx.Err() != nil
				queue = append(queue, ts.m.Stop(nil)...)
				continue
			}
			queue = append(queue, q.stream(ctx, rs, ts)...)
		case turn.ActionExecute:
			queue = append(queue, q.executeBatch(ctx, rs, ts, a.Calls)...)
		case turn.ActionEnd:
			q.usageLine(rs, ts)
			if a.Err != nil {
				// Returned, not printed: the caller prints it once.
				if llm.IsOverflow(a.Err) {
					return a.End, overflowError(rs.model, a.Err)
				}
				return a.End, &UserError{Msg: a.Err.Error(), Err: a.Err}
			}
			if ts.shutdown {
				return a.End, errShutdown
			}
			return a.End, nil
		}
	}
	return turn.EndUnknown, errors.New("turn ended without an end action")
}

// gapInterrupted reports a Ctrl-C (or shutdown) that arrived between
// phases.
func (q *Query) gapInterrupted(ctx context.Context, scope ports.InterruptScope) bool {
	select {
	case <-scope.C():
		return true
	case <-q.interrupts.Shutdown():
		return true
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// persist stamps and appends one event (and any turn end carried to
// it: turn_writes.go). It uses a context that survives cancellation: what
// happened is recorded even while shutting down.
func (q *Query) persist(ctx context.Context, rs *runState, ev conversation.Event) error {
	return q.persistAll(ctx, rs, []conversation.Event{ev})
}

// recorded is what follows an event's append: it joins the run's events,
// and a turn_start or a queued chat_request has its own writes.
func (q *Query) recorded(wctx context.Context, rs *runState, ev conversation.Event) error {
	// Any recorded event ends the block being checkpointed (the store
	// drops a checkpoint once an event follows it).
	rs.ckpt = blockCheckpoint{}
	rs.history.Add(ev)
	switch ev.Type {
	case conversation.EventTypeTurnStart:
		rs.turnID, rs.turnFiles = ev.ID, nil
		if rs.loc.Root == "" || rs.rootRecorded {
			break // no checkout to record, or this run's first turn recorded it
		}
		// The last-root record (docs/plugins.md): written when a run's first
		// turn persists. A queued turn runs in the same checkout.
		err := q.store.UpdateLocalMetadata(wctx, rs.loc, rs.id, func(m *conversation.LocalMetadata) error {
			m.LastRoot = &conversation.LastRoot{Path: rs.loc.Root, LastUsed: ev.Timestamp}
			return nil
		})
		if err != nil {
			return fmt.Errorf("record last root of conversation %s: %w", rs.id, err)
		}
		rs.rootRecorded = true
	case conversation.EventTypeChatRequest:
		if ev.Author == conversation.AuthorQueued {
			// The queued reply is now durably a turn: the draft's job is
			// done. It is removed once the request is on its way
			// (dropSentDraft), off the path to it.
			rs.sentDraft = true
		}
	}
	return nil
}

// streamEnded turns the provider's return into the machine's input.
func (q *Query) streamEnded(ctx context.Context, rs *runState, ts *turnState, err error, produced bool) []turn.Action {
	if err == nil {
		acts := ts.m.StreamDone(ts.step)
		if ts.step.Stop == llm.StopLength {
			q.lengthNote(rs, acts)
		}
		return acts
	}
	if ctx.Err() != nil {
		// SIGTERM-style cancellation while streaming: stop, saving what arrived.
		ts.shutdown = true
		return ts.m.Stop(nil)
	}
	if llm.IsOverflow(err) && !produced && !ts.overflowRetried {
		// Automatic compaction compacts and sends the request once more.
		ts.overflowRetried = true
		if q.compactOnOverflow(ctx, rs) {
			return []turn.Action{{Kind: turn.ActionRequest}}
		}
	}
	if llm.IsTransient(err) {
		// A retry discards the failed call's blocks: the next delta starts
		// a fresh checkpoint instead of adding to the discarded one.
		rs.ckpt = blockCheckpoint{}
	}
	if llm.IsTransient(err) && len(ts.m.Pending()) == 0 {
		// The retry discards this call's output (see turn.Machine): it
		// left no step in the conversation, so the count says it was made.
		rs.failed++
	}
	ts.retryHint = 0
	var pe *llm.Error
	if errors.As(err, &pe) {
		ts.retryHint = min(pe.Retry, time.Minute)
	}
	return ts.m.StreamError(err, llm.IsTransient(err))
}

func (q *Query) endBlock(ts *turnState) {
	if ts.inBlock != ports.ChannelUnknown {
		q.printer.EndBlock(ts.inBlock)
		ts.inBlock = ports.ChannelUnknown
	}
}

func (q *Query) chromeNote(line string) {
	q.printer.Write(ports.ChannelChrome, line)
	q.printer.EndBlock(ports.ChannelChrome)
}

// backoff is the wait before retry attempt n (1-based): 0.5s doubling,
// capped at 20s.
func backoff(n int) time.Duration {
	d := 500 * time.Millisecond
	for i := 1; i < n && d < 20*time.Second; i++ {
		d *= 2
	}
	if d > 20*time.Second {
		d = 20 * time.Second
	}
	return d
}

// waitRetry waits d before a retry; false when a Ctrl-C, shutdown or
// cancellation came first.
func (q *Query) waitRetry(ctx context.Context, scope ports.InterruptScope, d time.Duration) bool {
	select {
	case <-q.timers.After(d):
		return true
	case <-scope.C():
	case <-q.interrupts.Shutdown():
	case <-ctx.Done():
	}
	return false
}

// isPending reports (and consumes) a Ctrl-C waiting on scope.
func isPending(scope ports.InterruptScope) bool {
	select {
	case <-scope.C():
		return true
	default:
		return false
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// streamingAction is interrupt.streaming.action as a menu action.
func streamingAction(rs *runState) interrupt.Action {
	a, _ := interrupt.ParseStreamingAction(rs.cfg.Interrupt.Streaming.Action.String())
	return a
}
