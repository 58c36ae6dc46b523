package pluginsdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/jpcli/jp/adapters/pluginwire"
	"github.com/jpcli/jp/domain/plugin"
)

// ErrStreamClosed is returned by QueryStream.Next after Close.
var ErrStreamClosed = errors.New("pluginsdk: the query stream was closed")

// QueryStream is one delegated turn's answers: the event pushes jp sends
// as the turn runs, then its query_complete. Next returns them in order;
// after the last event it returns io.EOF and Result holds the
// query_complete. A correlated error ends the stream with that HostError.
//
// The Client's reader queues pushes without waiting for the consumer, so
// a slow reader of one stream never holds up another request. A stream
// owns no goroutine: one that is abandoned must be Closed, which drops
// what jp still sends for it (it does not stop the turn: Interrupt does).
type QueryStream struct {
	c  *Client
	id string

	started chan struct{} // closed on query_started or the end

	mu           sync.Mutex
	conversation string
	queue        []plugin.Event
	wake         chan struct{} // capacity 1: something was queued or it ended
	ended        bool
	err          error // why it ended without a query_complete
	complete     plugin.QueryComplete
	startedOnce  sync.Once
}

func newQueryStream(c *Client, id string) *QueryStream {
	return &QueryStream{c: c, id: id, started: make(chan struct{}), wake: make(chan struct{}, 1)}
}

// ID is the query's correlation id: every push of this turn echoes it.
func (s *QueryStream) ID() string { return s.id }

// Conversation is the conversation the turn runs on, as query_started
// named it.
func (s *QueryStream) Conversation() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conversation
}

// Next returns the next event push of the turn. It returns io.EOF once
// query_complete arrived and every event before it was returned; a
// HostError when jp answered the query with an error; ErrClosed when the
// connection ended first; ErrStreamClosed after Close; ctx.Err() when ctx
// ends first (the stream stays usable).
func (s *QueryStream) Next(ctx context.Context) (plugin.Event, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue[0] = plugin.Event{}
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return ev, nil
		}
		ended, err := s.ended, s.err
		s.mu.Unlock()
		if ended {
			if err != nil {
				return plugin.Event{}, err
			}
			return plugin.Event{}, io.EOF
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return plugin.Event{}, ctx.Err()
		}
	}
}

// Result is the turn's query_complete, valid once Next returned io.EOF
// (the zero value before).
func (s *QueryStream) Result() plugin.QueryComplete {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.complete
}

// Close stops receiving the turn's answers: what is queued and what jp
// still sends for it are dropped, and Next returns ErrStreamClosed. It
// does not stop the turn (see Checkout.Interrupt). Safe to call more than
// once, and after the end (Result keeps a query_complete that arrived).
func (s *QueryStream) Close() {
	s.c.forget(s.id)
	s.mu.Lock()
	s.queue = nil
	s.ended, s.err = true, ErrStreamClosed
	s.mu.Unlock()
	s.startedOnce.Do(func() { close(s.started) })
	s.signal()
}

// deliver takes one of jp's lines for this query, in the order jp sent
// them (only the reader loop calls it).
func (s *QueryStream) deliver(typ string, line []byte) {
	switch typ {
	case plugin.TypeQueryStarted:
		var qs plugin.QueryStarted
		if err := pluginwire.Unmarshal(line, &qs); err != nil {
			s.finish(nil, fmt.Errorf("pluginsdk: decode query_started: %w", err))
			return
		}
		s.mu.Lock()
		s.conversation = qs.Conversation
		s.mu.Unlock()
		s.startedOnce.Do(func() { close(s.started) })
	case plugin.TypeEvent:
		var ev plugin.Event
		if err := pluginwire.Unmarshal(line, &ev); err != nil {
			s.finish(nil, fmt.Errorf("pluginsdk: decode event: %w", err))
			return
		}
		s.mu.Lock()
		if !s.ended {
			s.queue = append(s.queue, ev)
		}
		s.mu.Unlock()
		s.signal()
	case plugin.TypeQueryComplete:
		var qc plugin.QueryComplete
		if err := pluginwire.Unmarshal(line, &qc); err != nil {
			s.finish(nil, fmt.Errorf("pluginsdk: decode query_complete: %w", err))
			return
		}
		s.finish(&qc, nil)
	case plugin.TypeError:
		var he HostError
		if err := json.Unmarshal(line, &he); err != nil {
			s.finish(nil, fmt.Errorf("pluginsdk: decode error from jp: %w", err))
			return
		}
		s.finish(nil, he)
	default:
		s.finish(nil, fmt.Errorf("pluginsdk: query answered with %s", typ))
	}
}

// isFinal reports whether an answer of type typ ends a query.
func isFinal(typ string) bool {
	return typ != plugin.TypeQueryStarted && typ != plugin.TypeEvent
}

// finish ends the stream with a query_complete or an error; the first end
// wins.
func (s *QueryStream) finish(qc *plugin.QueryComplete, err error) {
	s.mu.Lock()
	if !s.ended {
		s.ended = true
		s.err = err
		if qc != nil {
			s.complete = *qc
			if s.conversation == "" {
				s.conversation = qc.Conversation
			}
		}
	}
	s.mu.Unlock()
	s.startedOnce.Do(func() { close(s.started) })
	s.signal()
}

func (s *QueryStream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Query runs a delegated turn in the checkout (docs/plugins.md): q.Conversation
// and q.Content are required; q.ExpectedLastRoot is the record the user
// was shown (docs/plugins.md), nil for a checkout the user picked. q.ID and
// q.Workspace are set by Query.
//
// It returns once jp answered query_started, with the stream of the
// turn's events; or jp's refusal as a HostError (its LastRoot is the
// stored record when the last-root precondition refused the turn; no
// turn started). When ctx ends before the answer, the stream is closed
// and ctx.Err() returned; the turn may still run.
func (w Checkout) Query(ctx context.Context, q plugin.Query) (*QueryStream, error) {
	c := w.c
	id := c.newID()
	q.ID, q.Workspace = id, w.ref
	s := newQueryStream(c, id)
	if err := c.post(id, &call{stream: s}, q); err != nil {
		return nil, err
	}
	select {
	case <-s.started:
	case <-ctx.Done():
		// query_started may have raced the cancellation (shutdown cancels
		// the run's context itself): a stream jp started is returned, and
		// its owner sees the cancellation on Next.
		select {
		case <-s.started:
		default:
			s.Close()
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	ended, err, conv := s.ended, s.err, s.conversation
	s.mu.Unlock()
	switch {
	case ended && err != nil:
		return nil, err
	case ended && conv == "":
		return nil, errors.New("pluginsdk: query ended before jp answered query_started")
	}
	return s, nil
}

// Interrupt stops the delegated turn running on conversation in the
// checkout as Stop would: the turn saves what it has, and its stream ends
// with outcome stopped.
func (w Checkout) Interrupt(ctx context.Context, conversation string) error {
	return ack[plugin.Interrupted](ctx, w.c, func(id string) plugin.Message {
		return plugin.Interrupt{ID: id, Workspace: w.ref, Conversation: conversation}
	})
}

// Respond answers a tool approval pushed on a query's stream (an Event
// whose Respond is plugin.RespondToolApproval): action is "approve" or
// "reject". jp sends nothing back for a good answer, so Respond returns
// once the line is written; a bad one (an unknown call_id) is checked
// here where it can be, and otherwise shows as the turn's own outcome
// (an approval left unanswered is rejected after
// plugins.respond_timeout_secs).
func (c *Client) Respond(callID, action string) error {
	r := plugin.Respond{CallID: callID, Action: action}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("pluginsdk: respond: %w", err)
	}
	return c.send(r)
}

// DataType returns the type of an event push's data: a conversation
// event type (turn_start, chat_response, ...), plugin.DataChatResponseDelta
// or plugin.DataToolApproval; "" when it has none.
func DataType(ev plugin.Event) string {
	var h struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(ev.Data, &h) != nil {
		return ""
	}
	return h.Type
}
