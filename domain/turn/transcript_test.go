package turn

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"reflect"
	"testing"
	"unsafe"

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
	if ProviderSteps(evs) != 3 {
		t.Errorf("ProviderSteps %d, want 3", ProviderSteps(evs))
	}
}

// A transcript given events by AddCopy keeps nothing of the buffer they
// were decoded from (a chunk of events.json can go once read); by Add, it
// shares it.
func TestAddCopyKeepsNothingOfTheBuffer(t *testing.T) {
	t.Parallel()
	raw := []byte(`[
{"type":"turn_start","id":"a","timestamp":"2026-09-26T09:14:00Z","root":"/r"},
{"type":"chat_request","id":"b","timestamp":"2026-09-26T09:14:00Z","content":"the question","attachments":[{"source":"a.txt","media_type":"text/plain","content":"file text","size":9,"sha256":"s"}]},
{"type":"chat_response","id":"c","timestamp":"2026-09-26T09:14:01Z","reasoning":"thinking","signature":"sig"},
{"type":"tool_call_request","id":"d","timestamp":"2026-09-26T09:14:01Z","call_id":"call-1","name":"fs_read","arguments":{"path":"a"}},
{"type":"tool_call_response","id":"e","timestamp":"2026-09-26T09:14:02Z","call_id":"call-1","content":"the result"},
{"type":"chat_response","id":"f","timestamp":"2026-09-26T09:14:02Z","message":"the answer"},
{"type":"turn_end","id":"g","timestamp":"2026-09-26T09:14:02Z","outcome":"completed","model":"demo/echo"}
]`)
	evs, err := eventcodec.DecodeEvents(raw)
	if err != nil {
		t.Fatal(err)
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	for _, copied := range []bool{true, false} {
		tr := NewTranscript(0)
		for _, e := range evs {
			if copied {
				tr.AddCopy(e)
			} else {
				tr.Add(e)
			}
		}
		first, answer := tr.FirstExchange()
		kept := []any{tr.Messages(), first, answer, tr.LastModel(), tr.FinalText()}
		if shares := pointsInto(reflect.ValueOf(kept), lo, lo+uintptr(len(raw))); shares == copied {
			t.Errorf("AddCopy %v: the transcript shares the buffer: %v", copied, shares)
		}
		if copied && !reflect.DeepEqual(tr.Messages(), History(evs)) {
			t.Errorf("AddCopy gives other messages than Add: %+v", tr.Messages())
		}
	}
}

// pointsInto reports whether a string or byte slice reachable from v
// points into [lo, hi).
func pointsInto(v reflect.Value, lo, hi uintptr) bool {
	inside := func(p unsafe.Pointer, n int) bool { return n > 0 && uintptr(p) >= lo && uintptr(p) < hi }
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		return inside(unsafe.Pointer(unsafe.StringData(s)), len(s))
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return inside(v.UnsafePointer(), v.Len())
		}
		for i := range v.Len() {
			if pointsInto(v.Index(i), lo, hi) {
				return true
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if pointsInto(v.Field(i), lo, hi) {
				return true
			}
		}
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && pointsInto(v.Elem(), lo, hi)
	}
	return false
}
