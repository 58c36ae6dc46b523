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
// tools, end) for the app layer (app.Query) to execute. Events it
// returns carry neither ID nor timestamp; the app stamps them.
//
// Streamed text is merged into one chat_response per content block: a
// block ends when the stream switches between text and reasoning, when a
// tool call arrives, and when the stream ends, fails, or is stopped.
//
// The blocks of one provider call are held until the call's first tool
// call, its end, or the turn's end: a call that fails and is retried
// leaves nothing in the conversation (no partial copy per attempt, and no
// partial answer sent back to the model as if it were its own).
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

// End is how the app's turn loop ended a turn (the TurnEnd).
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
	Root        string                    // the checkout the turn runs in
	Content     string                    // the user's message
	Author      string                    // "user", "queued", "plugin:<name>"
	Schema      json.RawMessage           // optional structured-output schema
	Attachments []conversation.Attachment // what was attached to the message
	// ContinueOnLength is how many times a response cut by the token limit
	// is continued in this turn (query.continue_on_length).
	ContinueOnLength int
}

// Step is what the provider said about one finished call.
type Step struct {
	Model string
	Usage llm.Usage
	Stop  llm.StopReason
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
	sig        string // the signature of the reasoning block in buf
	held       []conversation.Event
	pending    []llm.ToolCall
	// continues left for responses cut by the token limit.
	continues int
	// model is the last model that answered; usage the turn's total.
	model string
	usage llm.Usage
	// lastStop is the stop reason of the last finished call.
	lastStop llm.StopReason
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
	m.continues = r.ContinueOnLength
	return []Action{
		{Kind: ActionPersist, Event: conversation.Event{Type: conversation.EventTypeTurnStart, Root: r.Root}},
		{Kind: ActionPersist, Event: conversation.Event{Type: conversation.EventTypeChatRequest, Content: r.Content, Author: r.Author, Schema: r.Schema, Attachments: r.Attachments}},
		{Kind: ActionRequest},
	}
}

// Delta adds streamed text (reasoning when reasoning is true). It is the
// hot path: when the delta switches block kind, the finished block is
// held until the call ends (see the package doc).
func (m *Machine) Delta(text string, reasoning bool) {
	if m.phase != PhaseStreaming {
		return
	}
	want := blockText
	if reasoning {
		want = blockReasoning
	}
	if m.block != want {
		m.hold()
		m.block = want
	}
	m.buf.WriteString(text)
}

// Signature records the provider's signature of the reasoning block being
// streamed; it is stored with the block and sent back in later requests.
func (m *Machine) Signature(sig string) {
	if m.phase == PhaseStreaming && m.block == blockReasoning {
		m.sig += sig
	}
}

// Usage is the tokens the turn used so far, and the last model that
// answered.
func (m *Machine) Usage() (llm.Usage, string) { return m.usage, m.model }

// LastStop is the stop reason of the last finished provider call.
func (m *Machine) LastStop() llm.StopReason { return m.lastStop }

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

// StreamDone ends a provider step: execute its tool calls, continue a
// response cut by the token limit (while ContinueOnLength allows), or
// complete. The step's model, usage and stop reason are recorded on its
// last block.
func (m *Machine) StreamDone(st Step) []Action {
	if m.phase != PhaseStreaming {
		return m.wrong("stream done")
	}
	m.hold()
	if st.Model != "" {
		m.model = st.Model
	}
	m.usage = m.usage.Add(st.Usage)
	m.lastStop = st.Stop
	if n := len(m.held); n > 0 {
		last := &m.held[n-1]
		last.Model, last.StopReason = st.Model, string(st.Stop)
		if !st.Usage.IsZero() {
			u := usageOf(st.Usage)
			last.Usage = &u
		}
	}
	acts := m.release()
	if len(m.pending) > 0 {
		m.phase = PhaseExecuting
		return append(acts, Action{Kind: ActionExecute, Calls: m.pending})
	}
	if st.Stop == llm.StopLength && m.continues > 0 {
		m.continues--
		return append(acts, Action{Kind: ActionRequest})
	}
	m.phase = PhaseComplete
	return append(acts, m.endActions(EndCompleted, conversation.OutcomeCompleted, nil)...)
}

func usageOf(u llm.Usage) conversation.Usage {
	return conversation.Usage{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens,
	}
}

// StreamError handles a failed provider call. A transient failure retries
// while the budget lasts: the failed call's blocks since its last tool call
// are discarded (the retry answers again from the same history); calls
// that arrived before a drop are executed first, since their requests are
// recorded. When the turn ends with the error, the partial block is kept.
func (m *Machine) StreamError(err error, transient bool) []Action {
	if m.phase != PhaseStreaming {
		return m.wrong("stream error")
	}
	if transient && m.retries < m.maxRetries {
		m.discard()
		if len(m.pending) > 0 {
			m.phase = PhaseExecuting
			return []Action{{Kind: ActionExecute, Calls: m.pending}}
		}
		m.retries++
		return []Action{{Kind: ActionRetry, Attempt: m.retries}}
	}
	acts := m.flushActions()
	acts = append(acts, m.cancelPending("The model's response failed before this tool ran.")...)
	m.phase = PhaseComplete
	if transient {
		err = fmt.Errorf("%w (gave up after %d retries)", err, m.retries)
	}
	return append(acts, m.endActions(EndUnknown, conversation.OutcomeError, err)...)
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
		return append(acts, m.endActions(EndStopped, conversation.OutcomeStopped, nil)...)
	case PhaseExecuting:
		acts, err := m.answer(rs)
		if err != nil {
			return append(acts, Action{Kind: ActionEnd, Err: err})
		}
		m.phase = PhaseComplete
		return append(acts, m.endActions(EndStopped, conversation.OutcomeStopped, nil)...)
	}
	return m.wrong("stop")
}

// Abort ends the turn discarding the partial response being streamed.
func (m *Machine) Abort() []Action {
	if m.phase != PhaseStreaming && m.phase != PhaseExecuting {
		return m.wrong("abort")
	}
	m.discard()
	acts := m.cancelPending("The user aborted the turn.")
	m.phase = PhaseComplete
	return append(acts, m.endActions(EndAborted, conversation.OutcomeAborted, nil)...)
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

// hold ends the block being streamed, keeping it with the call's others.
func (m *Machine) hold() {
	defer func() { m.block, m.sig = blockNone, "" }()
	if m.block == blockNone || m.buf.Len() == 0 {
		return
	}
	ev := conversation.Event{Type: conversation.EventTypeChatResponse}
	if m.block == blockReasoning {
		ev.Reasoning, ev.Signature = m.buf.String(), m.sig
	} else {
		ev.Message = m.buf.String()
	}
	m.buf.Reset()
	m.held = append(m.held, ev)
}

// release persists the held blocks.
func (m *Machine) release() []Action {
	acts := make([]Action, 0, len(m.held))
	for _, ev := range m.held {
		acts = append(acts, Action{Kind: ActionPersist, Event: ev})
	}
	m.held = m.held[:0]
	return acts
}

// discard drops the block being streamed and the held ones.
func (m *Machine) discard() {
	m.buf.Reset()
	m.block, m.sig = blockNone, ""
	m.held = m.held[:0]
}

// flushActions ends the block being streamed and persists the held
// blocks.
func (m *Machine) flushActions() []Action {
	m.hold()
	return m.release()
}

func (m *Machine) wrong(what string) []Action {
	return []Action{{Kind: ActionEnd, Err: fmt.Errorf("%w: %s in phase %s", ErrWrongPhase, what, m.phase)}}
}

// endActions records turn_end, with the turn's model and total usage.
func (m *Machine) endActions(e End, o conversation.Outcome, err error) []Action {
	ev := conversation.Event{Type: conversation.EventTypeTurnEnd, Outcome: o, Model: m.model}
	if !m.usage.IsZero() {
		u := usageOf(m.usage)
		ev.Usage = &u
	}
	return []Action{
		{Kind: ActionPersist, Event: ev},
		{Kind: ActionEnd, End: e, Err: err},
	}
}
