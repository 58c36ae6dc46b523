package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// How a Turn's events reach the store (docs/storage.md, "Crash safety").
//
// The events the phase machine asks to persist in a row (a turn's
// turn_start and chat_request; its last chat_response and turn_end) are
// one Append: one log write and at most one fsync, instead of one each.
//
// A turn that completes while a queued reply will be sent at once
// (query.loop allows it and there is no countdown: duration_secs = 0 or no
// terminal) does not write its end: its last events are carried to the
// next turn and appended with that turn's turn_start and chat_request, in
// one log write and one fsync, in a goroutine owned by the run while the
// queued turn's request starts (settle joins it before anything else is
// written and before the draft is removed). The store folds the log into
// events.json and syncs the checkout copy when an append ends a turn, so
// the fold and the projection sync between the two turns happen once, at
// the queued turn's end. The carried events are only in memory for the moment
// between the two appends: a kill there leaves the previous turn as a
// crash leaves any turn cut short (its last block is in the store's
// checkpoint, events.partial, until an event follows it), and the queued
// text in the draft, which is removed only once the conversation durably
// holds it as the new turn's chat_request.

// takePersists returns the event of the persist action a and of the
// persist actions that follow it in queue, and what remains of queue.
func takePersists(a turn.Action, queue []turn.Action) ([]conversation.Event, []turn.Action) {
	evs := []conversation.Event{a.Event}
	for len(queue) > 0 && queue[0].Kind == turn.ActionPersist {
		evs = append(evs, queue[0].Event)
		queue = queue[1:]
	}
	return evs, queue
}

// persistRun records evs, a run of persist actions followed by rest in
// the machine's queue, or carries them when they end a turn whose queued
// reply is sent at once.
func (q *Query) persistRun(ctx context.Context, rs *runState, ts *turnState, evs []conversation.Event, rest []turn.Action) error {
	if q.carriesEnd(ctx, rs, ts, rest) {
		for i := range evs {
			q.stamp(&evs[i])
			rs.history.Add(evs[i]) // the next turn's request holds them
		}
		rs.carry = append(rs.carry, evs...)
		return nil
	}
	return q.persistAll(ctx, rs, evs)
}

// carriesEnd reports whether the persists before rest end a turn that
// completed on its own, in a turn loop that sends the queued reply at
// once.
func (q *Query) carriesEnd(ctx context.Context, rs *runState, ts *turnState, rest []turn.Action) bool {
	if !rs.looping || ts.shutdown || ctx.Err() != nil || isClosed(q.interrupts.Shutdown()) {
		return false
	}
	if len(rest) == 0 || rest[0].Kind != turn.ActionEnd || rest[0].End != turn.EndCompleted || rest[0].Err != nil {
		return false
	}
	q.takeTypeAhead(ctx, rs)
	return q.sendsAtOnce(rs)
}

// sendsAtOnce reports whether a queued reply, at this turn boundary, is
// sent with no countdown: one is queued, query.loop allows it, and the
// countdown is off (duration_secs = 0) or has no terminal to run on.
func (q *Query) sendsAtOnce(rs *runState) bool {
	if _, ok := rs.slot.Text(); !ok || rs.cfg.Query.Loop == config.LoopPolicyNever {
		return false
	}
	return rs.cfg.Interrupt.LoopCountdown.DurationSecs <= 0 || !q.interrupts.Countdown()
}

// stamp gives an event its ID and time.
func (q *Query) stamp(ev *conversation.Event) {
	ev.ID = q.ids.NewID()
	ev.Timestamp = q.clock.Now().UTC()
}

// persistAll stamps evs and appends them, after the events carried from
// the previous turn, in one Append. It uses a context that survives
// cancellation: what happened is recorded even while shutting down.
func (q *Query) persistAll(ctx context.Context, rs *runState, evs []conversation.Event) error {
	if err := q.settle(rs); err != nil {
		return err
	}
	for i := range evs {
		q.stamp(&evs[i])
	}
	all := evs
	carried := len(rs.carry) > 0
	if carried {
		all = append(rs.carry[:len(rs.carry):len(rs.carry)], evs...)
	}
	rs.carry = nil
	wctx := context.WithoutCancel(ctx)
	if carried && queuedRequest(evs) {
		// The queued turn's request does not depend on this append: it
		// starts while the append's fsync runs (settle joins it before
		// anything else is written, and before the draft goes).
		done := make(chan error, 1)
		go func() { done <- q.store.Append(wctx, rs.loc, rs.id, all...) }()
		rs.inflight = &inflightAppend{done: done, what: eventTypes(all)}
	} else if err := q.store.Append(wctx, rs.loc, rs.id, all...); err != nil && !q.savedAnyway(rs, err) {
		return fmt.Errorf("record %s in conversation %s: %w", eventTypes(evs), rs.id, err)
	}
	for _, ev := range evs {
		if err := q.recorded(wctx, rs, ev); err != nil {
			return err
		}
	}
	return nil
}

// flushCarry appends the events carried from a turn's end when no next
// turn took them (the queued turn failed before it recorded anything).
func (q *Query) flushCarry(ctx context.Context, rs *runState) error {
	if err := q.settle(rs); err != nil {
		return err
	}
	if len(rs.carry) == 0 {
		return nil
	}
	carried := rs.carry
	rs.carry = nil
	if err := q.store.Append(context.WithoutCancel(ctx), rs.loc, rs.id, carried...); err != nil && !q.savedAnyway(rs, err) {
		return fmt.Errorf("record %s in conversation %s: %w", eventTypes(carried), rs.id, err)
	}
	rs.ckpt = blockCheckpoint{}
	return nil
}

// eventTypes names the types of evs, for an error.
func eventTypes(evs []conversation.Event) string {
	names := make([]string, len(evs))
	for i, e := range evs {
		names[i] = e.Type.String()
	}
	return strings.Join(names, ", ")
}

// dropSentDraft removes the draft once the conversation durably holds the
// queued reply it held as a turn's chat_request. Until it succeeds the
// text is in both places, never in neither.
func (q *Query) dropSentDraft(ctx context.Context, rs *runState) error {
	if !rs.sentDraft {
		return nil
	}
	if err := q.settle(rs); err != nil {
		return err // not durably in the conversation: the draft stays
	}
	if err := q.drafts.DeleteDraft(context.WithoutCancel(ctx), rs.loc, rs.id); err != nil {
		return err
	}
	rs.sentDraft = false
	return nil
}

// inflightAppend is the append of a queued turn's start (with the previous
// turn's end) running while the turn's request starts. Its goroutine is
// owned by the run: settle waits for it, and every path that writes
// again, removes the draft or ends the turn loop calls settle first.
type inflightAppend struct {
	done chan error
	what string // its event types, for an error
}

// settle waits for the append in flight, if any. A failed one fails every
// later write of the run with its error: the conversation does not hold
// what the turn goes on from.
func (q *Query) settle(rs *runState) error {
	if rs.inflight != nil {
		err := <-rs.inflight.done
		if err != nil && !q.savedAnyway(rs, err) {
			rs.inflightErr = fmt.Errorf("record %s in conversation %s: %w", rs.inflight.what, rs.id, err)
		}
		rs.inflight = nil
	}
	return rs.inflightErr
}

// queuedRequest reports whether evs hold a queued reply's chat_request.
func queuedRequest(evs []conversation.Event) bool {
	for _, e := range evs {
		if e.Type == conversation.EventTypeChatRequest && e.Author == conversation.AuthorQueued {
			return true
		}
	}
	return false
}

// savedAnyway reports whether err, from an append, says that only the
// checkout copy could not be updated (a full disk, a read-only or broken
// checkout directory): the events are in the user-local copy, the source
// of truth, so the run goes on and exits 0, saying so once. A script that
// treated it as a failure would send the turn again and duplicate it. The
// next write updates the checkout copy whole.
func (q *Query) savedAnyway(rs *runState, err error) bool {
	var ce *ports.CheckoutCopyError
	if !errors.As(err, &ce) {
		return false
	}
	q.chromeLine(rs, "turn saved; the checkout copy could not be updated: "+safetext.String(ce.Err.Error()))
	return true
}
