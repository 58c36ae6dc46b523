package turn

import (
	"bytes"
	"slices"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

// Transcript is what a Run needs of a conversation's history, built one
// event at a time as the events are read and then as the Run records
// them: the messages sent to a provider (History), the provider steps so
// far, the model last used, the completed turns, the first exchange and
// the answer of the last turn. It keeps no event, so a conversation of
// 100,000 events costs its messages, not its events, and a turn's next
// request costs what the turn added, not the whole history again.
type Transcript struct {
	msgs []llm.Message
	// shared is how many of msgs a caller of Messages may still hold:
	// those are never changed in place.
	shared   int
	open     []string        // unanswered call IDs of the current assistant step
	answered map[string]bool // call IDs that have a response
	steps    int             // provider steps (ProviderSteps)
	inStep   bool
	model    string // the model of the last turn_end that names one
	done     int    // turns that ended completed
	first    string // the first user message
	answer   string // the first answer after it
	hasFirst bool
	final    []string // the answer's text since the last turn_start or tool_call_response

	// Compaction (see compaction.go): the overlays in effect, the current
	// turn as the Rust jp counts them, whether it has an event, and where
	// each turn's messages start in msgs.
	overlays   []overlay
	turn       int
	turnHas    bool
	turnStarts []int
	turnTimes  []time.Time
}

// NewTranscript returns an empty transcript; sizeHint is the number of
// events expected (0 when unknown).
func NewTranscript(sizeHint int) *Transcript {
	// An agentic turn of 8 events (a question, two tool calls and their
	// results, an answer) is 6 messages.
	return &Transcript{msgs: make([]llm.Message, 0, sizeHint*6/8+8), answered: map[string]bool{}, turnStarts: []int{0}}
}

// push appends m to the messages. The array doubles when full: append
// grows a long slice by a quarter at a time, which for a conversation's
// tens of thousands of messages allocates several times their size.
func (t *Transcript) push(m ...llm.Message) {
	if n := len(t.msgs) + len(m); n > cap(t.msgs) {
		grown := make([]llm.Message, len(t.msgs), max(64, 2*cap(t.msgs), n))
		copy(grown, t.msgs)
		t.msgs = grown
	}
	t.msgs = append(t.msgs, m...)
}

// Add takes the next event of the conversation.
func (t *Transcript) Add(e conversation.Event) {
	t.addMessage(e)
	t.addTurn(e)
	switch e.Type {
	case conversation.EventTypeChatResponse, conversation.EventTypeToolCallRequest:
		if !t.inStep {
			t.steps++
			t.inStep = true
		}
	case conversation.EventTypeChatRequest, conversation.EventTypeToolCallResponse, conversation.EventTypeTurnStart:
		t.inStep = false
	}
	switch e.Type {
	case conversation.EventTypeTurnEnd:
		if e.Model != "" {
			t.model = e.Model
		}
		if e.Outcome == conversation.OutcomeCompleted {
			t.done++
		}
	case conversation.EventTypeChatRequest:
		if !t.hasFirst {
			t.first, t.hasFirst = e.Content, true
		}
	case conversation.EventTypeChatResponse:
		if t.hasFirst && t.answer == "" && e.Message != "" {
			t.answer = e.Message
		}
	}
	switch e.Type {
	case conversation.EventTypeTurnStart, conversation.EventTypeToolCallResponse:
		t.final = t.final[:0]
	case conversation.EventTypeChatResponse:
		if e.Reasoning == "" && e.Message != "" {
			t.final = append(t.final, e.Message)
		}
	}
}

// AddCopy is Add for an event whose strings share a buffer the caller
// lets go (a chunk of events.json, see eventcodec.EachEventRead): the
// transcript keeps its own copies of the parts it uses, and nothing else
// of e, so the buffer can go.
func (t *Transcript) AddCopy(e conversation.Event) {
	c := conversation.Event{
		Type: e.Type, Content: strings.Clone(e.Content), Message: strings.Clone(e.Message),
		Reasoning: strings.Clone(e.Reasoning), Signature: strings.Clone(e.Signature),
		CallID: strings.Clone(e.CallID), Name: strings.Clone(e.Name), Arguments: bytes.Clone(e.Arguments),
		IsError: e.IsError, Model: strings.Clone(e.Model), Outcome: e.Outcome,
		Timestamp: e.Timestamp, Kind: strings.Clone(e.Kind), Compaction: e.Compaction,
	}
	if len(e.Attachments) > 0 {
		c.Attachments = make([]conversation.Attachment, len(e.Attachments))
		for i, a := range e.Attachments {
			c.Attachments[i] = conversation.Attachment{Source: strings.Clone(a.Source), MediaType: strings.Clone(a.MediaType),
				Content: strings.Clone(a.Content), Data: bytes.Clone(a.Data), Size: a.Size, SHA256: strings.Clone(a.SHA256), Local: a.Local}
		}
	}
	t.Add(c)
}

// addMessage is History's part of Add: consecutive chat_response and
// tool_call_request events form one assistant message; a tool call left
// unanswered by a cut-off turn gets a synthetic error result when the
// next turn or request starts.
func (t *Transcript) addMessage(e conversation.Event) {
	switch e.Type {
	case conversation.EventTypeTurnStart:
		t.closeOpen()
	case conversation.EventTypeChatRequest:
		t.closeOpen()
		t.push(llm.Message{Role: llm.RoleUser, Text: e.Content, Attachments: attachments(e.Attachments)})
	case conversation.EventTypeChatResponse:
		if e.Message == "" && e.Reasoning == "" {
			return
		}
		if len(t.open) > 0 {
			t.closeOpen()
		}
		a := t.assistant()
		a.Text += e.Message
		a.Reasoning += e.Reasoning
		if e.Reasoning != "" {
			a.Thinking = append(a.Thinking, llm.Thinking{Text: e.Reasoning, Signature: e.Signature})
		}
	case conversation.EventTypeToolCallRequest:
		a := t.assistant()
		a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: e.CallID, Name: e.Name, Arguments: e.Arguments})
		t.open = append(t.open, e.CallID)
	case conversation.EventTypeToolCallResponse:
		t.answered[e.CallID] = true
		t.push(llm.Message{Role: llm.RoleTool, ToolCallID: e.CallID, Text: e.Content, IsError: e.IsError})
	}
}

// closeOpen answers the open calls that have no response yet.
func (t *Transcript) closeOpen() {
	t.push(t.unanswered()...)
	for _, id := range t.open {
		t.answered[id] = true
	}
	t.open = t.open[:0]
}

// unanswered are the synthetic results of the open calls without one.
func (t *Transcript) unanswered() []llm.Message {
	var out []llm.Message
	seen := map[string]bool{}
	for _, id := range t.open {
		if !t.answered[id] && !seen[id] {
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: id, Text: unansweredResult, IsError: true})
			seen[id] = true
		}
	}
	return out
}

// assistant returns the assistant message being built, starting one when
// the last message is not one. A message a caller of Messages may hold is
// copied before it changes.
func (t *Transcript) assistant() *llm.Message {
	n := len(t.msgs)
	if n == 0 || t.msgs[n-1].Role != llm.RoleAssistant {
		t.push(llm.Message{Role: llm.RoleAssistant})
		return &t.msgs[n]
	}
	if n-1 < t.shared {
		t.msgs = slices.Clone(t.msgs) // rare: an assistant message ended a request
		t.shared = 0
	}
	return &t.msgs[n-1]
}

// Messages are the messages sent to a provider for the history so far,
// the compaction overlays applied (see project). The caller must not
// change them; later Adds never do.
func (t *Transcript) Messages() []llm.Message {
	t.shared = len(t.msgs)
	msgs := slices.Clip(t.msgs)
	if extra := t.unanswered(); len(extra) > 0 {
		msgs = append(msgs, extra...)
	}
	return t.project(msgs)
}

// RawMessages are Messages without the compaction overlays: what the
// model would see of the conversation had it none.
func (t *Transcript) RawMessages() []llm.Message {
	t.shared = len(t.msgs)
	msgs := slices.Clip(t.msgs)
	if extra := t.unanswered(); len(extra) > 0 {
		return append(msgs, extra...)
	}
	return msgs
}

// ProviderSteps counts the provider calls the history had: each maximal
// run of chat_response / tool_call_request events that follows a
// chat_request or a tool_call_response is one step. The demo model uses
// it to pick its script entry across turns and runs.
func (t *Transcript) ProviderSteps() int { return t.steps }

// LastModel is the model the conversation last used ("<provider>/<model>"
// as recorded on turn_end), or "".
func (t *Transcript) LastModel() string { return t.model }

// CompletedTurns counts the turns that ended completed.
func (t *Transcript) CompletedTurns() int { return t.done }

// FirstExchange is the conversation's first user message and the text of
// the first answer after it.
func (t *Transcript) FirstExchange() (first, answer string) { return t.first, t.answer }

// FinalText is the answer of the last turn: the text of its chat_response
// events (not reasoning) after its last tool_call_response, or after its
// turn_start. A nil transcript has none.
func (t *Transcript) FinalText() string {
	if t == nil {
		return "" // the run ended before it read the conversation
	}
	return strings.Join(t.final, "")
}
