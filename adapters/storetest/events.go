package storetest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

// EventMaker builds valid events: IDs are a prefix and a counter, and
// timestamps grow by a millisecond per event. It is not safe for
// concurrent use.
type EventMaker struct {
	prefix string
	now    time.Time
	n      int
}

// NewEventMaker returns a maker whose events carry IDs prefix1, prefix2,
// ... and timestamps after start.
func NewEventMaker(prefix string, start time.Time) *EventMaker {
	return &EventMaker{prefix: prefix, now: start.UTC()}
}

func (m *EventMaker) base(t conversation.EventType) conversation.Event {
	m.n++
	m.now = m.now.Add(time.Millisecond)
	return conversation.Event{Type: t, ID: fmt.Sprintf("%s%d", m.prefix, m.n), Timestamp: m.now}
}

// TurnStart starts a turn in the checkout root.
func (m *EventMaker) TurnStart(root string) conversation.Event {
	e := m.base(conversation.EventTypeTurnStart)
	e.Root = root
	return e
}

// ChatRequest is a user message.
func (m *EventMaker) ChatRequest(content string) conversation.Event {
	e := m.base(conversation.EventTypeChatRequest)
	e.Content, e.Author = content, conversation.AuthorUser
	return e
}

// Message is an assistant message.
func (m *EventMaker) Message(text string) conversation.Event {
	e := m.base(conversation.EventTypeChatResponse)
	e.Message = text
	return e
}

// ToolCall requests a call of tool name; its call ID is unique.
func (m *EventMaker) ToolCall(name string) conversation.Event {
	e := m.base(conversation.EventTypeToolCallRequest)
	e.CallID, e.Name = "call-"+e.ID, name
	e.Arguments = json.RawMessage(`{"path":"README.md"}`)
	return e
}

// ToolResult answers call.
func (m *EventMaker) ToolResult(call conversation.Event, content string) conversation.Event {
	e := m.base(conversation.EventTypeToolCallResponse)
	e.CallID, e.Content = call.CallID, content
	return e
}

// TurnEnd ends the turn with outcome.
func (m *EventMaker) TurnEnd(outcome conversation.Outcome) conversation.Event {
	e := m.base(conversation.EventTypeTurnEnd)
	e.Outcome = outcome
	return e
}

// Turn is a complete turn: a request, tools tool calls each answered, a
// reply and a completed turn_end.
func (m *EventMaker) Turn(root, prompt string, tools int) []conversation.Event {
	evs := []conversation.Event{m.TurnStart(root), m.ChatRequest(prompt)}
	for i := range tools {
		call := m.ToolCall(fmt.Sprintf("tool_%d", i))
		evs = append(evs, call, m.ToolResult(call, fmt.Sprintf("result %d of %q", i, prompt)))
	}
	return append(evs, m.Message("done: "+prompt), m.TurnEnd(conversation.OutcomeCompleted))
}
