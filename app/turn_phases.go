package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/ports"
)

// turnState holds the per-turn pieces, rebuilt for every Turn: the phase
// machine (with its retry budget) and the turn's tools.
type turnState struct {
	m       *turn.Machine
	tools   ports.ToolServer
	offered []llm.Tool
	// inBlock is the printer channel of the block being streamed.
	inBlock ports.Channel
	// retryHint is the provider's Retry-After for the last failure.
	retryHint time.Duration
}

// RunTurnPhases drives one Turn through its phases (Idle -> Streaming ->
// Executing -> Streaming ... -> Complete) and says how it ended. Events are
// appended as they happen; a fatal failure is returned as an error after
// turn_end {outcome: error} is recorded.
func (q *Query) RunTurnPhases(ctx context.Context, rs *runState, req turn.Request) (turn.End, error) {
	tools, releaseTools, err := q.tools.Open(ctx, rs.cfg, rs.loc.Root)
	if err != nil {
		return turn.EndUnknown, err
	}
	defer releaseTools()
	offered, err := tools.Tools(ctx)
	if err != nil {
		return turn.EndUnknown, err
	}
	ts := &turnState{m: turn.New(rs.cfg.Assistant.Request.MaxRetries), tools: tools, offered: offered}

	queue := ts.m.Start(req)
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		switch a.Kind {
		case turn.ActionPersist:
			if err := q.persist(ctx, rs, a.Event); err != nil {
				return turn.EndUnknown, err
			}
		case turn.ActionRequest:
			queue = append(queue, q.stream(ctx, rs, ts)...)
		case turn.ActionRetry:
			d := max(backoff(a.Attempt), ts.retryHint)
			q.printer.Write(ports.ChannelChrome, fmt.Sprintf("The model's service failed; retrying in %s (attempt %d of %d).", d.Round(time.Millisecond), a.Attempt, rs.cfg.Assistant.Request.MaxRetries))
			q.printer.EndBlock(ports.ChannelChrome)
			if err := q.sleeper.Sleep(ctx, d); err != nil {
				queue = append(queue, ts.m.Stop(nil)...)
				continue
			}
			queue = append(queue, q.stream(ctx, rs, ts)...)
		case turn.ActionExecute:
			results, stopped := q.execute(ctx, rs, ts, a.Calls)
			if stopped {
				queue = append(queue, ts.m.Stop(results)...)
			} else {
				queue = append(queue, ts.m.ToolResults(results)...)
			}
		case turn.ActionEnd:
			if a.Err != nil {
				q.printer.Write(ports.ChannelError, a.Err.Error())
				q.printer.EndBlock(ports.ChannelError)
				return a.End, &UserError{Msg: a.Err.Error(), Err: a.Err}
			}
			if a.End == turn.EndStopped && ctx.Err() != nil {
				return a.End, fmt.Errorf("turn stopped: %w", ports.ErrInterrupted)
			}
			return a.End, nil
		}
	}
	return turn.EndUnknown, errors.New("turn ended without an end action")
}

// persist stamps and appends one event. It uses a context that survives
// cancellation: what happened is recorded even while shutting down.
func (q *Query) persist(ctx context.Context, rs *runState, ev conversation.Event) error {
	ev.ID = q.ids.NewID()
	ev.Timestamp = q.clock.Now().UTC()
	wctx := context.WithoutCancel(ctx)
	if err := q.store.Append(wctx, rs.loc, rs.id, ev); err != nil {
		return fmt.Errorf("record %s in conversation %s: %w", ev.Type, rs.id, err)
	}
	rs.events = append(rs.events, ev)
	if ev.Type == conversation.EventTypeTurnStart {
		// The last-root record (seed 003): written when a turn first persists.
		err := q.store.UpdateLocalMetadata(wctx, rs.loc, rs.id, func(m *conversation.LocalMetadata) error {
			m.LastRoot = &conversation.LastRoot{Path: rs.loc.Root, LastUsed: ev.Timestamp}
			return nil
		})
		if err != nil {
			return fmt.Errorf("record last root of conversation %s: %w", rs.id, err)
		}
	}
	return nil
}

// stream makes one provider call and feeds its events to the machine.
func (q *Query) stream(ctx context.Context, rs *runState, ts *turnState) []turn.Action {
	req := llm.Request{
		Model:      rs.model.Model,
		Messages:   turn.History(rs.events),
		Tools:      ts.offered,
		PriorCalls: turn.ProviderSteps(rs.events) + rs.failed,
	}
	stopWait := q.printer.Wait("waiting for the model")
	var (
		pending  []turn.Action // persist actions produced mid-stream
		emitErr  error
		produced bool
	)
	emit := func(ev llm.Event) error {
		stopWait()
		switch ev.Kind {
		case llm.EventTextDelta, llm.EventReasoningDelta:
			produced = true
			reasoning := ev.Kind == llm.EventReasoningDelta
			ch := ports.ChannelContent
			if reasoning {
				ch = ports.ChannelReasoning
			}
			if flushed, ok := ts.m.Delta(ev.Text, reasoning); ok {
				q.endBlock(ts)
				if err := q.persist(ctx, rs, flushed); err != nil {
					emitErr = err
					return err
				}
			}
			ts.inBlock = ch
			q.printer.Write(ch, ev.Text)
		case llm.EventToolCall:
			produced = true
			q.endBlock(ts)
			for _, a := range ts.m.ToolCall(ev.ToolCall) {
				if a.Kind != turn.ActionPersist {
					pending = append(pending, a)
					continue
				}
				if err := q.persist(ctx, rs, a.Event); err != nil {
					emitErr = err
					return err
				}
			}
			q.printer.Write(ports.ChannelToolCall, fmt.Sprintf("%s %s", ev.ToolCall.Name, compact(ev.ToolCall.Arguments)))
			q.printer.EndBlock(ports.ChannelToolCall)
		case llm.EventChrome:
			q.chromeLine(rs, ev.Text)
		}
		return nil
	}
	err := rs.provider.Stream(ctx, req, emit)
	stopWait()
	q.endBlock(ts)
	if emitErr != nil {
		return append(pending, turn.Action{Kind: turn.ActionEnd, Err: emitErr})
	}
	if err == nil {
		return append(pending, ts.m.StreamDone()...)
	}
	if ctx.Err() != nil {
		// Ctrl-C or SIGTERM while streaming: stop, saving what arrived.
		return append(pending, ts.m.Stop(nil)...)
	}
	if !produced {
		rs.failed++
	}
	ts.retryHint = 0
	var pe *llm.Error
	if errors.As(err, &pe) {
		ts.retryHint = min(pe.Retry, time.Minute)
	}
	return append(pending, ts.m.StreamError(err, llm.IsTransient(err))...)
}

func (q *Query) endBlock(ts *turnState) {
	if ts.inBlock != ports.ChannelUnknown {
		q.printer.EndBlock(ts.inBlock)
		ts.inBlock = ports.ChannelUnknown
	}
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
