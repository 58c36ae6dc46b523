package app

import (
	"context"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/ports"
)

// stream makes one provider call and feeds its events to the machine. The
// provider runs in a goroutine owned by this call; Ctrl-C opens the
// streaming menu while the stream waits (it is not polled meanwhile).
func (q *Query) stream(ctx context.Context, rs *runState, ts *turnState) []turn.Action {
	s := q.startStream(ctx, rs, ts)
	defer s.close()
	return s.run(ctx)
}

// turnStream is one provider call of a Turn, from the request to the
// actions its end asks for. It owns the provider's goroutine: every
// path out of run has the goroutine finished (the events channel closed
// and its error read).
type turnStream struct {
	q  *Query
	rs *runState
	ts *turnState

	// scope is the streaming interrupt scope, pushed before the provider
	// starts so that a Ctrl-C at the first token reaches the menu.
	scope ports.InterruptScope
	// cancel stops the provider call.
	cancel context.CancelFunc
	events chan llm.Event
	errc   chan error
	// stopWait ends the wait indicator (naming the model, or the
	// reasoning); idempotent.
	stopWait func()
	// reasoningWait is set once the wait indicator stands for the
	// reasoning (style.reasoning.display static, progress, timer, summary).
	reasoningWait bool

	// pending are the machine's non-persist actions from tool calls,
	// carried out after the stream ends.
	pending []turn.Action
	// produced is set once the call streamed text or a tool call.
	produced bool
}

// streamRequest is the provider request of the turn's next call.
func streamRequest(rs *runState, ts *turnState) llm.Request {
	return llm.Request{
		Model:      rs.model.Model,
		System:     rs.cfg.SystemPrompt(),
		Messages:   rs.history.Messages(),
		Tools:      ts.offered,
		Schema:     ts.schema,
		Params:     rs.params,
		PriorCalls: rs.history.ProviderSteps() + rs.failed,
	}
}

// startStream pushes the streaming scope, starts the provider and the
// wait indicator.
func (q *Query) startStream(ctx context.Context, rs *runState, ts *turnState) *turnStream {
	req := streamRequest(rs, ts)
	ts.step = turn.Step{Model: rs.model.String()}
	s := &turnStream{q: q, rs: rs, ts: ts, scope: q.interrupts.Push("streaming"),
		events: make(chan llm.Event, 256), errc: make(chan error, 1)}
	sctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	go func() {
		defer close(s.events)
		s.errc <- rs.provider.Stream(sctx, req, func(ev llm.Event) error {
			select {
			case s.events <- ev:
				return nil
			case <-sctx.Done():
				return sctx.Err()
			}
		})
	}()
	s.stopWait = q.printer.Wait(waitModelLabel(rs.model.String()))
	// The request is on its way: remove the draft of the queued reply it
	// sends (a failure is retried and reported when the turn ends).
	_ = q.dropSentDraft(ctx, rs)
	return s
}

// close releases what startStream took, in reverse order.
func (s *turnStream) close() {
	s.stopWait()
	s.cancel()
	s.scope.Pop()
}

// run feeds the provider's events to the machine until the stream ends,
// a Ctrl-C menu ends or redirects the turn, or a shutdown stops it.
func (s *turnStream) run(ctx context.Context) []turn.Action {
	for {
		var menuEnd []turn.Action // set when a menu action ends or redirects the turn
		select {
		case ev, ok := <-s.events:
			if !ok {
				return append(s.pending, s.ended(ctx)...)
			}
			if err := s.handle(ctx, ev); err != nil {
				s.cancel()
				_ = s.drain(ctx)
				return append(s.pending, turn.Action{Kind: turn.ActionEnd, Err: err})
			}
		case <-s.scope.C():
			s.stopWait()
			menuEnd = s.q.streamingInterrupt(ctx, s.rs, s.ts, s.cancel, func() error { return s.drain(ctx) })
		case <-s.q.interrupts.Shutdown():
			return append(s.pending, s.shutdown(ctx)...)
		}
		if menuEnd != nil {
			s.q.endBlock(s.ts)
			return append(s.pending, menuEnd...)
		}
	}
}

// ended is the end of the provider's stream: the machine's input for its
// return, unless a Ctrl-C landed as the stream ended.
func (s *turnStream) ended(ctx context.Context) []turn.Action {
	err := <-s.errc
	s.stopWait()
	s.q.flushCheckpoint(ctx, s.rs)
	s.q.endBlock(s.ts)
	if err == nil && isPending(s.scope) {
		// Ctrl-C landed as the stream ended: the menu still applies
		// (the turn has not completed), so no press is lost.
		noop := func() error { return nil }
		if acts := s.q.streamingInterrupt(ctx, s.rs, s.ts, func() {}, noop); acts != nil {
			return acts
		}
	}
	return s.q.streamEnded(ctx, s.rs, s.ts, err, s.produced)
}

// shutdown stops the turn on a graceful shutdown, keeping what arrived.
func (s *turnStream) shutdown(ctx context.Context) []turn.Action {
	s.ts.shutdown = true
	s.cancel()
	if err := s.drain(ctx); err != nil {
		return []turn.Action{{Kind: turn.ActionEnd, Err: err}}
	}
	s.q.endBlock(s.ts)
	return s.ts.m.Stop(nil)
}

// drain processes what already arrived after the stream was cancelled,
// and waits for the provider's goroutine to end.
func (s *turnStream) drain(ctx context.Context) error {
	for ev := range s.events {
		if err := s.handle(ctx, ev); err != nil {
			return err
		}
	}
	<-s.errc
	return nil
}

// handle feeds one provider event to the machine and the printer.
func (s *turnStream) handle(ctx context.Context, ev llm.Event) error {
	if s.rs.lateNote != "" {
		s.q.chromeLine(s.rs, s.rs.lateNote)
		s.rs.lateNote = ""
	}
	if ev.Kind != llm.EventChrome && !s.reasoningSpinner(ev) {
		s.stopWait() // the first byte of the answer; a chrome line is not
	}
	switch ev.Kind {
	case llm.EventTextDelta, llm.EventReasoningDelta:
		s.delta(ctx, ev.Text, ev.Kind == llm.EventReasoningDelta)
	case llm.EventToolCall:
		return s.toolCall(ctx, ev.ToolCall)
	case llm.EventReasoningSignature:
		s.ts.m.Signature(ev.Text)
	case llm.EventUsage:
		s.ts.step.Usage = s.ts.step.Usage.Add(ev.Usage)
		s.rs.addUsage(ev.Usage)
	case llm.EventDone:
		s.ts.step.Stop = ev.Stop
		s.rs.lastStop = ev.Stop
	case llm.EventChrome:
		s.q.chromeLine(s.rs, ev.Text)
	}
	return nil
}

// delta is streamed text or reasoning: checkpointed, merged by the
// machine, printed (reasoning unless hidden).
func (s *turnStream) delta(ctx context.Context, text string, reasoning bool) {
	q, rs, ts := s.q, s.rs, s.ts
	s.produced = true
	ts.deltas++
	ch := ports.ChannelContent
	if reasoning {
		ch = ports.ChannelReasoning
	}
	if ts.inBlock != ch {
		q.endBlock(ts)
		ts.reasoningShown = 0
	}
	q.checkpoint(ctx, rs, text, reasoning)
	ts.m.Delta(text, reasoning)
	ts.inBlock = ch
	if reasoning {
		text = s.truncateReasoning(text)
	}
	if text != "" && (!reasoning || !rs.hideReasoning) {
		q.printer.Write(ch, text)
	}
	q.interrupts.Progress(ports.Progress{Turn: rs.turns, Phase: "streaming", Deltas: ts.deltas})
}

// toolCall records a streamed tool call (its persist actions now, the
// rest once the stream ends) and shows it.
func (s *turnStream) toolCall(ctx context.Context, call llm.ToolCall) error {
	q := s.q
	s.produced = true
	q.endBlock(s.ts)
	for _, a := range s.ts.m.ToolCall(call) {
		if a.Kind != turn.ActionPersist {
			s.pending = append(s.pending, a)
			continue
		}
		if err := q.persist(ctx, s.rs, a.Event); err != nil {
			return err
		}
	}
	if !s.rs.hideToolCalls {
		q.printer.Write(ports.ChannelToolCall, q.toolCallLine(ctx, s.rs, s.ts, call))
		q.printer.EndBlock(ports.ChannelToolCall)
	}
	q.reportToolCall(call)
	return nil
}
