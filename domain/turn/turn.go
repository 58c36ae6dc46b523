// Package turn is the phase machine of one Turn: a user request and
// everything until the assistant stops.
//
//	         Start                      StreamDone, no tool calls
//	+------+ ------> +-----------+ ------------------------------> +----------+
//	| Idle |         | Streaming |                                  | Complete |
//	+------+         +-----------+ <--+                             +----------+
//	                   |  ^   |       | transient error:                ^
//	 StreamDone with   |  |   +-------+ retry (budget per turn)         |
//	 tool calls        v  | ToolResults                                 |
//	                 +-----------+                                      |
//	                 | Executing | ---- Stop (cancelled results) -------+
//	                 +-----------+
//
// Stop and Abort end the turn from Streaming or Executing; a fatal error (or
// a spent retry budget) ends it with an error. The machine is pure: each
// input returns Actions (persist this event, call the model, run these
// tools, end) for the app layer (app.RunTurnPhases) to execute. Events it
// returns carry neither ID nor timestamp; the app stamps them.
//
// Streamed text is merged into one chat_response per content block: a
// block ends when the stream switches between text and reasoning, when a
// tool call arrives, and when the stream ends, fails, or is stopped.
package turn

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

// Phase is where a turn is.
type Phase int

// Turn phases.
const (
	PhaseUnknown Phase = iota
	PhaseIdle
	PhaseStreaming
	PhaseExecuting
	PhaseComplete
)

// String names the phase.
func (p Phase) String() string {
	switch p {
	case PhaseIdle:
		return "idle"
	case PhaseStreaming:
		return "streaming"
	case PhaseExecuting:
		return "executing"
	case PhaseComplete:
		return "complete"
	}
	return "unknown"
}

// End is how RunTurnPhases ended a turn (the TurnEnd).
type End int

// Turn ends. A fatal failure is reported as an error next to EndUnknown.
const (
	EndUnknown End = iota
	EndCompleted
	EndStopped
	EndAborted
)

// String names the end.
func (e End) String() string {
	switch e {
	case EndCompleted:
		return "completed"
	case EndStopped:
		return "stopped"
	case EndAborted:
		return "aborted"
	}
	return "unknown"
}

// ActionKind is what the app must do.
type ActionKind int

// Actions.
const (
	ActionUnknown ActionKind = iota
	// ActionPersist: append Event to the conversation.
	ActionPersist
	// ActionRequest: call the model with the conversation so far.
	ActionRequest
	// ActionRetry: wait the backoff for attempt Attempt, then call again.
	ActionRetry
	// ActionExecute: run Calls (concurrently) and report ToolResults.
	ActionExecute
	// ActionEnd: the turn is over with End (or Err).
	ActionEnd
)

// Action is one instruction for the app.
type Action struct {
	Kind    ActionKind
	Event   conversation.Event
	Calls   []llm.ToolCall
	Attempt int
	End     End
	Err     error
}

// Request starts a turn.
type Request struct {
	Root    string          // the checkout the turn runs in
	Content string          // the user's message
	Author  string          // "user", "queued", "plugin:<name>"
	Schema  json.RawMessage // optional structured-output schema
}

// ToolResult answers one call of the current batch.
type ToolResult struct {
	CallID  string
	Content string
	IsError bool
	// Files are the files the call changed (recorded on the
	// tool_call_response).
	Files []string
}

// ErrWrongPhase is returned (in an ActionEnd) for an input the current
// phase does not accept; it is a programming error in the caller.
var ErrWrongPhase = errors.New("input not valid in this phase")

type block int

const (
	blockNone block = iota
	blockText
	blockReasoning
)

// Machine is the state of one turn. The zero value is not usable; call New.
type Machine struct {
	phase      Phase
	maxRetries int
	retries    int
	block      block
	buf        strings.Builder
	pending    []llm.ToolCall
}

// New returns a machine in PhaseIdle with a retry budget of maxRetries.
func New(maxRetries int) *Machine {
	return &Machine{phase: PhaseIdle, maxRetries: maxRetries}
}

// Phase returns the current phase.
func (m *Machine) Phase() Phase { return m.phase }

// Pending returns the tool calls of the current batch.
func (m *Machine) Pending() []llm.ToolCall { return m.pending }

// Start begins the turn: persist turn_start and chat_request, then request.
func (m *Machine) Start(r Request) []Action {
	if m.phase != PhaseIdle {
		return m.wrong("start")
	}
	m.phase = PhaseStreaming
	return []Action{
		{Kind: ActionPersist, Event: conversation.Event{Type: conversation.EventTypeTurnStart, Root: r.Root}},
		{Kind: ActionPersist, Event: conversation.Event{Type: conversation.EventTypeChatRequest, Content: r.Content, Author: r.Author, Schema: r.Schema}},
		{Kind: ActionRequest},
	}
}

// Delta adds streamed text (reasoning when reasoning is true). It is the
// hot path and allocates nothing: when the delta switches block kind, the
// finished block is returned for persisting (ok = true).
func (m *Machine) Delta(text string, reasoning bool) (flushed conversation.Event, ok bool) {
	if m.phase != PhaseStreaming {
		return conversation.Event{}, false
	}
	want := blockText
	if reasoning {
		want = blockReasoning
	}
	if m.block != want {
		flushed, ok = m.flush()
		m.block = want
	}
	m.buf.WriteString(text)
	return flushed, ok
}

// ToolCall records a complete tool call from the stream.
func (m *Machine) ToolCall(c llm.ToolCall) []Action {
	if m.phase != PhaseStreaming {
		return m.wrong("tool call")
	}
	acts := m.flushActions()
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	c.Arguments = args
	m.pending = append(m.pending, c)
	return append(acts, Action{Kind: ActionPersist, Event: conversation.Event{
		Type: conversation.EventTypeToolCallRequest, CallID: c.ID, Name: c.Name, Arguments: args,
	}})
}

// StreamDone ends a provider step: execute its tool calls, or complete.
func (m *Machine) StreamDone() []Action {
	if m.phase != PhaseStreaming {
		return m.wrong("stream done")
	}
	acts := m.flushActions()
	if len(m.pending) > 0 {
		m.phase = PhaseExecuting
		return append(acts, Action{Kind: ActionExecute, Calls: m.pending})
	}
	m.phase = PhaseComplete
	return append(acts, endActions(EndCompleted, conversation.OutcomeCompleted, nil)...)
}

// StreamError handles a failed provider call. The partial block is kept.
// A transient failure retries while the budget lasts; calls that arrived
// before a drop are executed first, since their requests are recorded.
func (m *Machine) StreamError(err error, transient bool) []Action {
	if m.phase != PhaseStreaming {
		return m.wrong("stream error")
	}
	acts := m.flushActions()
	if transient && m.retries < m.maxRetries {
		if len(m.pending) > 0 {
			m.phase = PhaseExecuting
			return append(acts, Action{Kind: ActionExecute, Calls: m.pending})
		}
		m.retries++
		return append(acts, Action{Kind: ActionRetry, Attempt: m.retries})
	}
	acts = append(acts, m.cancelPending("The model's response failed before this tool ran.")...)
	m.phase = PhaseComplete
	if transient {
		err = fmt.Errorf("%w (gave up after %d retries)", err, m.retries)
	}
	return append(acts, endActions(EndUnknown, conversation.OutcomeError, err)...)
}

// ToolResults answers the batch (every pending call exactly once, in any
// order) and goes back to Streaming.
func (m *Machine) ToolResults(rs []ToolResult) []Action {
	if m.phase != PhaseExecuting {
		return m.wrong("tool results")
	}
	acts, err := m.answer(rs)
	if err != nil {
		return append(acts, Action{Kind: ActionEnd, Err: err})
	}
	m.phase = PhaseStreaming
	return append(acts, Action{Kind: ActionRequest})
}

// Reply stops the stream and sends text in the same turn (the streaming
// menu's [r]): the partial block is kept, calls that arrived but never ran
// are answered as cancelled, then the reply is recorded and the model is
// called again.
func (m *Machine) Reply(text, author string) []Action {
	if m.phase != PhaseStreaming {
		return m.wrong("reply")
	}
	acts := m.flushActions()
	acts = append(acts, m.cancelPending("The user interrupted with a reply before this tool ran.")...)
	return append(acts,
		Action{Kind: ActionPersist, Event: conversation.Event{Type: conversation.EventTypeChatRequest, Content: text, Author: author}},
		Action{Kind: ActionRequest})
}

// Stop ends the turn saving what streamed so far. While executing, rs are
// the (cancelled) results of the batch.
func (m *Machine) Stop(rs []ToolResult) []Action {
	switch m.phase {
	case PhaseStreaming:
		acts := m.flushActions()
		acts = append(acts, m.cancelPending("The user stopped the turn before this tool ran.")...)
		m.phase = PhaseComplete
		return append(acts, endActions(EndStopped, conversation.OutcomeStopped, nil)...)
	case PhaseExecuting:
		acts, err := m.answer(rs)
		if err != nil {
			return append(acts, Action{Kind: ActionEnd, Err: err})
		}
		m.phase = PhaseComplete
		return append(acts, endActions(EndStopped, conversation.OutcomeStopped, nil)...)
	}
	return m.wrong("stop")
}

// Abort ends the turn discarding the partial response being streamed.
func (m *Machine) Abort() []Action {
	if m.phase != PhaseStreaming && m.phase != PhaseExecuting {
		return m.wrong("abort")
	}
	m.buf.Reset()
	m.block = blockNone
	acts := m.cancelPending("The user aborted the turn.")
	m.phase = PhaseComplete
	return append(acts, endActions(EndAborted, conversation.OutcomeAborted, nil)...)
}

func (m *Machine) answer(rs []ToolResult) ([]Action, error) {
	byID := make(map[string]ToolResult, len(rs))
	for _, r := range rs {
		byID[r.CallID] = r
	}
	acts := make([]Action, 0, len(m.pending))
	for _, c := range m.pending {
		r, ok := byID[c.ID]
		if !ok {
			return acts, fmt.Errorf("%w: no result for tool call %s", ErrWrongPhase, c.ID)
		}
		acts = append(acts, Action{Kind: ActionPersist, Event: conversation.Event{
			Type: conversation.EventTypeToolCallResponse, CallID: c.ID, Content: r.Content, IsError: r.IsError, Files: r.Files,
		}})
	}
	m.pending = nil
	return acts, nil
}

func (m *Machine) cancelPending(why string) []Action {
	rs := make([]ToolResult, len(m.pending))
	for i, c := range m.pending {
		rs[i] = ToolResult{CallID: c.ID, Content: why, IsError: true}
	}
	acts, _ := m.answer(rs)
	return acts
}

func (m *Machine) flush() (conversation.Event, bool) {
	if m.block == blockNone || m.buf.Len() == 0 {
		m.block = blockNone
		return conversation.Event{}, false
	}
	ev := conversation.Event{Type: conversation.EventTypeChatResponse}
	if m.block == blockReasoning {
		ev.Reasoning = m.buf.String()
	} else {
		ev.Message = m.buf.String()
	}
	m.buf.Reset()
	m.block = blockNone
	return ev, true
}

// flushActions persists the finished block, if any.
func (m *Machine) flushActions() []Action {
	if ev, ok := m.flush(); ok {
		return []Action{{Kind: ActionPersist, Event: ev}}
	}
	return nil
}

func (m *Machine) wrong(what string) []Action {
	return []Action{{Kind: ActionEnd, Err: fmt.Errorf("%w: %s in phase %s", ErrWrongPhase, what, m.phase)}}
}

func endActions(e End, o conversation.Outcome, err error) []Action {
	return []Action{
		{Kind: ActionPersist, Event: conversation.Event{Type: conversation.EventTypeTurnEnd, Outcome: o}},
		{Kind: ActionEnd, End: e, Err: err},
	}
}
