package turn

import (
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

// unansweredResult stands in for a tool call whose turn was cut off (the
// process was killed) so that the history sent to a provider stays valid.
const unansweredResult = "No result was recorded for this call: the turn was interrupted."

// History turns stored events into the messages sent to a provider.
// Consecutive chat_response and tool_call_request events form one
// assistant message; a tool call left unanswered by a cut-off turn gets a
// synthetic error result.
func History(evs []conversation.Event) []llm.Message {
	msgs := make([]llm.Message, 0, len(evs))
	var open []string // unanswered call IDs of the current assistant step
	answered := map[string]bool{}
	closeOpen := func() {
		for _, id := range open {
			if !answered[id] {
				msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: id, Text: unansweredResult, IsError: true})
				answered[id] = true
			}
		}
		open = open[:0]
	}
	assistant := func() *llm.Message {
		if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleAssistant {
			return &msgs[n-1]
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant})
		return &msgs[len(msgs)-1]
	}
	for _, e := range evs {
		switch e.Type {
		case conversation.EventTypeTurnStart:
			closeOpen()
		case conversation.EventTypeChatRequest:
			closeOpen()
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Text: e.Content, Attachments: attachments(e.Attachments)})
		case conversation.EventTypeChatResponse:
			if e.Message == "" && e.Reasoning == "" {
				continue
			}
			if len(open) > 0 {
				closeOpen()
			}
			a := assistant()
			a.Text += e.Message
			a.Reasoning += e.Reasoning
			if e.Reasoning != "" {
				a.Thinking = append(a.Thinking, llm.Thinking{Text: e.Reasoning, Signature: e.Signature})
			}
		case conversation.EventTypeToolCallRequest:
			a := assistant()
			a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: e.CallID, Name: e.Name, Arguments: e.Arguments})
			open = append(open, e.CallID)
		case conversation.EventTypeToolCallResponse:
			answered[e.CallID] = true
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: e.CallID, Text: e.Content, IsError: e.IsError})
		}
	}
	closeOpen()
	return msgs
}

func attachments(as []conversation.Attachment) []llm.Attachment {
	if len(as) == 0 {
		return nil
	}
	out := make([]llm.Attachment, len(as))
	for i, a := range as {
		out[i] = llm.Attachment{Name: a.Source, MediaType: a.MediaType, Text: a.Content, Data: a.Data}
	}
	return out
}

// LastModel is the model the conversation last used ("<provider>/<model>"
// as recorded on turn_end), or "".
func LastModel(evs []conversation.Event) string {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == conversation.EventTypeTurnEnd && evs[i].Model != "" {
			return evs[i].Model
		}
	}
	return ""
}

// ProviderSteps counts the provider calls a conversation already had: each
// maximal run of chat_response / tool_call_request events that follows a
// chat_request or a tool_call_response is one step. The demo model uses it
// to pick its script entry across turns and runs.
func ProviderSteps(evs []conversation.Event) int {
	n := 0
	inStep := false
	for _, e := range evs {
		switch e.Type {
		case conversation.EventTypeChatResponse, conversation.EventTypeToolCallRequest:
			if !inStep {
				n++
				inStep = true
			}
		case conversation.EventTypeChatRequest, conversation.EventTypeToolCallResponse, conversation.EventTypeTurnStart:
			inStep = false
		}
	}
	return n
}
