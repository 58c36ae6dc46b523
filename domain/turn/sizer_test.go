package turn

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

// projected is the estimate of the messages the transcript projects (the
// overlays applied), which Sizer approximates without holding them.
func projected(evs []conversation.Event) int {
	tr := NewTranscript(len(evs))
	for _, e := range evs {
		tr.Add(e)
	}
	return llm.EstimateTokens(llm.Request{Messages: tr.Messages()})
}

func sized(evs []conversation.Event) int {
	var s Sizer
	for _, e := range evs {
		s.Add(e)
	}
	return s.Tokens()
}

// Sizer follows the projection of every compaction scenario: within a few
// tokens on the small fixture, within 5% on a long conversation, and each
// overlay makes the estimate smaller.
func TestSizerFollowsTheProjection(t *testing.T) {
	for _, sc := range []string{"baseline", "reasoning_strip", "summary", "summary_overlap", "tool_omit", "tool_strip_both", "tool_strip_request", "tool_strip_response"} {
		evs := fixture(t, sc)
		if got, want := sized(evs), projected(evs); got < want-8 || got > want+8 {
			t.Errorf("%s: Sizer %d tokens, projection %d", sc, got, want)
		}
	}
	// A long conversation: 12 turns, each a 4000-character question, a
	// tool call with an 8000-character result, reasoning and an answer.
	big := strings.Repeat("abcd ", 800)
	var evs []conversation.Event
	for i := range 12 {
		id := "call_" + string(rune('a'+i))
		evs = append(evs,
			conversation.Event{Type: conversation.EventTypeTurnStart},
			conversation.Event{Type: conversation.EventTypeChatRequest, Content: big},
			conversation.Event{Type: conversation.EventTypeChatResponse, Reasoning: big},
			conversation.Event{Type: conversation.EventTypeToolCallRequest, CallID: id, Name: "fs_read", Arguments: json.RawMessage(`{"path":"` + strings.Repeat("p", 400) + `"}`)},
			conversation.Event{Type: conversation.EventTypeToolCallResponse, CallID: id, Content: big + big},
			conversation.Event{Type: conversation.EventTypeChatResponse, Message: big},
			conversation.Event{Type: conversation.EventTypeTurnEnd})
	}
	overlay := func(c conversation.Compaction) conversation.Event {
		return conversation.NewCompactionEvent("x", evs[0].Timestamp, c)
	}
	summary := "the user asked for reads; all done"
	prev := 0
	for i, c := range []conversation.Compaction{
		{}, // none yet
		{FromTurn: 1, ToTurn: 10, StripReasoning: true},
		{FromTurn: 1, ToTurn: 10, Tools: &conversation.ToolCallPolicy{Response: true}},
		{FromTurn: 1, ToTurn: 10, Tools: &conversation.ToolCallPolicy{Request: true, Response: true}},
		{FromTurn: 1, ToTurn: 10, Tools: &conversation.ToolCallPolicy{Omit: true}},
		{FromTurn: 0, ToTurn: 10, Summary: &summary},
	} {
		if i > 0 {
			evs = append(evs, overlay(c))
		}
		got, want := sized(evs), projected(evs)
		if d := got - want; d*20 > want || -d*20 > want {
			t.Errorf("overlay %d: Sizer %d tokens, projection %d (over 5%% apart)", i, got, want)
		}
		if i > 0 && got >= prev {
			t.Errorf("overlay %d: %d tokens, not fewer than %d before it", i, got, prev)
		}
		prev = got
	}
	// An overlay reaches no turn started after it, whatever its range.
	late := append(evs[:7:7], overlay(conversation.Compaction{FromTurn: 0, ToTurn: 20, StripReasoning: true}))
	late = append(late, evs[7:14]...)
	if got, want := sized(late), projected(late); got*20 < want*19 || got*20 > want*21 {
		t.Errorf("overlay before a turn: Sizer %d, projection %d", got, want)
	}
	// A reset undoes them all.
	evs = append(evs, conversation.NewCompactionResetEvent("r", evs[0].Timestamp))
	if got, want := sized(evs), projected(evs); got*20 < want*19 || got*20 > want*21 {
		t.Errorf("after a reset: Sizer %d, projection %d", got, want)
	}
}
