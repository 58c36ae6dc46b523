package turn

import (
	"reflect"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

func transcriptEvents() []conversation.Event {
	e := func(typ conversation.EventType, f func(*conversation.Event)) conversation.Event {
		ev := conversation.Event{Type: typ}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	return []conversation.Event{
		e(conversation.EventTypeTurnStart, nil),
		e(conversation.EventTypeChatRequest, func(ev *conversation.Event) { ev.Content = "q1" }),
		e(conversation.EventTypeChatResponse, func(ev *conversation.Event) { ev.Reasoning = "think"; ev.Signature = "s" }),
		e(conversation.EventTypeChatResponse, func(ev *conversation.Event) { ev.Message = "a" }),
		e(conversation.EventTypeChatResponse, func(ev *conversation.Event) { ev.Message = "a2" }),
		e(conversation.EventTypeToolCallRequest, func(ev *conversation.Event) { ev.CallID = "c1"; ev.Name = "ls" }),
		e(conversation.EventTypeToolCallRequest, func(ev *conversation.Event) { ev.CallID = "c2"; ev.Name = "ls" }),
		e(conversation.EventTypeToolCallResponse, func(ev *conversation.Event) { ev.CallID = "c1"; ev.Content = "r1" }),
		// killed here: c2 never answered
		e(conversation.EventTypeTurnStart, nil),
		e(conversation.EventTypeChatRequest, func(ev *conversation.Event) { ev.Content = "q2" }),
		e(conversation.EventTypeToolCallRequest, func(ev *conversation.Event) { ev.CallID = "c3"; ev.Name = "cat" }),
		e(conversation.EventTypeToolCallResponse, func(ev *conversation.Event) { ev.CallID = "c3"; ev.Content = "r3"; ev.IsError = true }),
		e(conversation.EventTypeChatResponse, func(ev *conversation.Event) { ev.Message = "b" }),
		e(conversation.EventTypeChatResponse, func(ev *conversation.Event) { ev.Reasoning = "hm" }),
		e(conversation.EventTypeChatResponse, func(ev *conversation.Event) { ev.Message = "c" }),
		e(conversation.EventTypeTurnEnd, func(ev *conversation.Event) { ev.Outcome = conversation.OutcomeCompleted; ev.Model = "demo/echo" }),
		e(conversation.EventTypeTurnStart, nil),
		e(conversation.EventTypeChatRequest, func(ev *conversation.Event) { ev.Content = "q3" }),
		e(conversation.EventTypeTurnEnd, func(ev *conversation.Event) { ev.Outcome = conversation.OutcomeStopped }),
	}
}

// A transcript built one event at a time gives, after every event, the
// messages History gives for the events so far, and the messages it gave
// earlier are never changed by what it takes later (a provider may still
// hold them), even when a later response extends the assistant message
// that ended an earlier request.
func TestTranscriptIsHistoryAtEveryEvent(t *testing.T) {
	t.Parallel()
	evs := transcriptEvents()
	tr := NewTranscript(0)
	var given [][]llm.Message
	for i, e := range evs {
		tr.Add(e)
		msgs := tr.Messages()
		if want := History(evs[:i+1]); !reflect.DeepEqual(msgs, want) {
			t.Fatalf("after event %d: transcript %+v, History %+v", i, msgs, want)
		}
		given = append(given, msgs)
		for j, g := range given {
			if want := History(evs[:j+1]); !reflect.DeepEqual(g, want) {
				t.Fatalf("the messages given after event %d changed by event %d: %+v, want %+v", j, i, g, want)
			}
		}
	}
	h := History(evs)
	roles := ""
	for _, m := range h {
		roles += m.Role.String()[:1]
	}
	if roles != "uattuatau" {
		t.Fatalf("roles = %s (%+v)", roles, h)
	}
	if h[1].Text != "aa2" || h[1].Reasoning != "think" || len(h[1].ToolCalls) != 2 || len(h[1].Thinking) != 1 || h[1].Thinking[0].Signature != "s" {
		t.Fatalf("assistant message = %+v", h[1])
	}
	if h[3].ToolCallID != "c2" || !h[3].IsError || h[3].Text != unansweredResult {
		t.Fatalf("the unanswered call must get a synthetic error result: %+v", h[3])
	}
}

func TestTranscriptFacts(t *testing.T) {
	t.Parallel()
	evs := transcriptEvents()
	tr := NewTranscript(len(evs))
	if tr.FinalText() != "" || (*Transcript)(nil).FinalText() != "" {
		t.Fatal("an empty transcript has an answer")
	}
	for _, e := range evs[:16] {
		tr.Add(e)
	}
	if got := tr.FinalText(); got != "bc" {
		t.Errorf("FinalText = %q, want the answer after the last tool result, without reasoning", got)
	}
	if first, answer := tr.FirstExchange(); first != "q1" || answer != "a" {
		t.Errorf("FirstExchange = %q, %q", first, answer)
	}
	if tr.CompletedTurns() != 1 || tr.LastModel() != "demo/echo" || tr.ProviderSteps() != 3 {
		t.Errorf("completed %d, last model %q, steps %d; want 1, demo/echo, 3", tr.CompletedTurns(), tr.LastModel(), tr.ProviderSteps())
	}
	for _, e := range evs[16:] {
		tr.Add(e)
	}
	if tr.FinalText() != "" || tr.CompletedTurns() != 1 || tr.LastModel() != "demo/echo" {
		t.Errorf("after a stopped turn: answer %q, completed %d, model %q", tr.FinalText(), tr.CompletedTurns(), tr.LastModel())
	}
	if LastModel(evs) != "demo/echo" || ProviderSteps(evs) != 3 {
		t.Errorf("LastModel %q, ProviderSteps %d", LastModel(evs), ProviderSteps(evs))
	}
}
