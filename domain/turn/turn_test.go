package turn

import (
	"errors"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

// step is one input to the machine in a scripted transition test.
type step func(m *Machine) []Action

func start(m *Machine) []Action { return m.Start(Request{Root: "/r", Content: "hi", Author: "user"}) }
func text(s string) step {
	return func(m *Machine) []Action {
		m.Delta(s, false)
		return nil
	}
}
func reasoning(s string) step {
	return func(m *Machine) []Action {
		m.Delta(s, true)
		return nil
	}
}
func call(id string) step {
	return func(m *Machine) []Action { return m.ToolCall(llm.ToolCall{ID: id, Name: "ls"}) }
}
func done(m *Machine) []Action { return m.StreamDone(Step{}) }
func lengthStop(m *Machine) []Action {
	return m.StreamDone(Step{Model: "m1", Stop: llm.StopLength, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}})
}
func transient(m *Machine) []Action {
	return m.StreamError(errors.New("503"), true)
}
func fatal(m *Machine) []Action { return m.StreamError(errors.New("400"), false) }
func results(ids ...string) step {
	return func(m *Machine) []Action {
		rs := make([]ToolResult, len(ids))
		for i, id := range ids {
			rs[i] = ToolResult{CallID: id, Content: "ok"}
		}
		return m.ToolResults(rs)
	}
}
func stop(ids ...string) step {
	return func(m *Machine) []Action {
		rs := make([]ToolResult, len(ids))
		for i, id := range ids {
			rs[i] = ToolResult{CallID: id, Content: "cancelled", IsError: true}
		}
		return m.Stop(rs)
	}
}
func abort(m *Machine) []Action { return m.Abort() }

// summary renders actions compactly: P:type(detail) R X(n) W(n) E:end.
func summary(acts []Action) []string {
	var out []string
	for _, a := range acts {
		switch a.Kind {
		case ActionPersist:
			s := "P:" + a.Event.Type.String()
			switch {
			case a.Event.Message != "":
				s += "(" + a.Event.Message + ")"
			case a.Event.Reasoning != "":
				s += "(~" + a.Event.Reasoning + ")"
			case a.Event.Outcome != "":
				s += "(" + string(a.Event.Outcome) + ")"
			case a.Event.CallID != "":
				s += "(" + a.Event.CallID + ")"
			}
			out = append(out, s)
		case ActionRequest:
			out = append(out, "R")
		case ActionRetry:
			out = append(out, "W")
		case ActionExecute:
			out = append(out, "X")
		case ActionEnd:
			s := "E:" + a.End.String()
			if a.Err != nil {
				s += "!"
			}
			out = append(out, s)
		}
	}
	return out
}

func TestTransitions(t *testing.T) {
	tests := []struct {
		name       string
		retries    int
		steps      []step
		want       []string
		finalPhase Phase
	}{
		{"plain answer", 5, []step{start, text("a"), text("b"), done},
			[]string{"P:turn_start", "P:chat_request", "R", "P:chat_response(ab)", "P:turn_end(completed)", "E:completed"}, PhaseComplete},
		{"reasoning then text are two blocks", 5, []step{start, reasoning("x"), reasoning("y"), text("a"), done},
			[]string{"P:turn_start", "P:chat_request", "R", "P:chat_response(~xy)", "P:chat_response(a)", "P:turn_end(completed)", "E:completed"}, PhaseComplete},
		{"tool batch then answer", 5, []step{start, text("let me"), call("c1"), call("c2"), done, results("c2", "c1"), text("done"), done},
			[]string{"P:turn_start", "P:chat_request", "R", "P:chat_response(let me)", "P:tool_call_request(c1)", "P:tool_call_request(c2)", "X",
				"P:tool_call_response(c1)", "P:tool_call_response(c2)", "R", "P:chat_response(done)", "P:turn_end(completed)", "E:completed"}, PhaseComplete},
		{"transient discards the failed call and retries", 5, []step{start, reasoning("th"), text("par"), transient, reasoning("th"), text("partial"), done},
			[]string{"P:turn_start", "P:chat_request", "R", "W", "P:chat_response(~th)", "P:chat_response(partial)", "P:turn_end(completed)", "E:completed"}, PhaseComplete},
		{"blocks before a tool call stand when the call fails after it", 5, []step{start, text("a"), call("c1"), text("lost"), transient, results("c1"), text("b"), done},
			[]string{"P:turn_start", "P:chat_request", "R", "P:chat_response(a)", "P:tool_call_request(c1)", "X", "P:tool_call_response(c1)", "R", "P:chat_response(b)", "P:turn_end(completed)", "E:completed"}, PhaseComplete},
		{"a fatal error keeps the partial answer", 5, []step{start, text("par"), fatal},
			[]string{"P:turn_start", "P:chat_request", "R", "P:chat_response(par)", "P:turn_end(error)", "E:unknown!"}, PhaseComplete},
		{"a length stop without continues completes", 5, []step{start, text("cut"), lengthStop},
			[]string{"P:turn_start", "P:chat_request", "R", "P:chat_response(cut)", "P:turn_end(completed)", "E:completed"}, PhaseComplete},
		{"retry budget spent", 1, []step{start, transient, transient},
			[]string{"P:turn_start", "P:chat_request", "R", "W", "P:turn_end(error)", "E:unknown!"}, PhaseComplete},
		{"fatal", 5, []step{start, text("a"), fatal},
			[]string{"P:turn_start", "P:chat_request", "R", "P:chat_response(a)", "P:turn_end(error)", "E:unknown!"}, PhaseComplete},
		{"drop after a call executes the call", 5, []step{start, call("c1"), transient},
			[]string{"P:turn_start", "P:chat_request", "R", "P:tool_call_request(c1)", "X"}, PhaseExecuting},
		{"fatal with a pending call answers it", 5, []step{start, call("c1"), fatal},
			[]string{"P:turn_start", "P:chat_request", "R", "P:tool_call_request(c1)", "P:tool_call_response(c1)", "P:turn_end(error)", "E:unknown!"}, PhaseComplete},
		{"stop while streaming saves partial", 5, []step{start, text("half"), stop()},
			[]string{"P:turn_start", "P:chat_request", "R", "P:chat_response(half)", "P:turn_end(stopped)", "E:stopped"}, PhaseComplete},
		{"stop while executing answers calls", 5, []step{start, call("c1"), done, stop("c1")},
			[]string{"P:turn_start", "P:chat_request", "R", "P:tool_call_request(c1)", "X", "P:tool_call_response(c1)", "P:turn_end(stopped)", "E:stopped"}, PhaseComplete},
		{"abort discards partial", 5, []step{start, text("half"), abort},
			[]string{"P:turn_start", "P:chat_request", "R", "P:turn_end(aborted)", "E:aborted"}, PhaseComplete},
		{"reply keeps partial, cancels unrun calls, asks again", 5, []step{start, text("half"), call("c1"), func(m *Machine) []Action { return m.Reply("do this instead", "user") }, text("ok"), done},
			[]string{"P:turn_start", "P:chat_request", "R", "P:chat_response(half)", "P:tool_call_request(c1)", "P:tool_call_response(c1)", "P:chat_request", "R", "P:chat_response(ok)", "P:turn_end(completed)", "E:completed"}, PhaseComplete},
		{"reply while executing is wrong", 5, []step{start, call("c1"), done, func(m *Machine) []Action { return m.Reply("x", "user") }},
			[]string{"P:turn_start", "P:chat_request", "R", "P:tool_call_request(c1)", "X", "E:unknown!"}, PhaseExecuting},
		{"results in the wrong phase", 5, []step{start, results("c1")},
			[]string{"P:turn_start", "P:chat_request", "R", "E:unknown!"}, PhaseStreaming},
		{"results missing a call", 5, []step{start, call("c1"), call("c2"), done, results("c1")},
			[]string{"P:turn_start", "P:chat_request", "R", "P:tool_call_request(c1)", "P:tool_call_request(c2)", "X", "P:tool_call_response(c1)", "E:unknown!"}, PhaseExecuting},
		{"start twice", 5, []step{start, start},
			[]string{"P:turn_start", "P:chat_request", "R", "E:unknown!"}, PhaseStreaming},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(tt.retries)
			if m.Phase() != PhaseIdle {
				t.Fatalf("new machine in %s", m.Phase())
			}
			var got []string
			var all []Action
			for _, s := range tt.steps {
				acts := s(m)
				all = append(all, acts...)
				got = append(got, summary(acts)...)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("actions\n got %v\nwant %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("action %d: got %s want %s\n got %v\nwant %v", i, got[i], tt.want[i], got, tt.want)
				}
			}
			if m.Phase() != tt.finalPhase {
				t.Fatalf("phase %s, want %s", m.Phase(), tt.finalPhase)
			}
			checkPersistedStreamIsValid(t, all)
		})
	}
}

// checkPersistedStreamIsValid stamps the persisted events and runs the
// domain invariants over them: whatever the machine records is valid.
func checkPersistedStreamIsValid(t *testing.T, acts []Action) {
	t.Helper()
	var evs []conversation.Event
	for i, a := range acts {
		if a.Kind == ActionPersist {
			e := a.Event
			e.ID = string(rune('a' + i))
			e.Timestamp = conversation.ID("1").Time().Add(1)
			evs = append(evs, e)
		}
	}
	if err := conversation.Validate(evs); err != nil {
		t.Fatalf("persisted events break invariants: %v", err)
	}
}

func TestDeltaAllocatesNothingOnTheHotPath(t *testing.T) {
	m := New(0)
	m.Start(Request{})
	m.Delta("warm", false)
	allocs := testing.AllocsPerRun(1000, func() { m.Delta("x", false) })
	if allocs > 0.1 {
		t.Fatalf("Delta allocates %.2f per call", allocs)
	}
}

func TestToolCallDefaultsArguments(t *testing.T) {
	m := New(0)
	m.Start(Request{})
	acts := m.ToolCall(llm.ToolCall{ID: "c", Name: "x"})
	if string(acts[len(acts)-1].Event.Arguments) != "{}" {
		t.Fatalf("arguments = %s", acts[len(acts)-1].Event.Arguments)
	}
	if string(m.Pending()[0].Arguments) != "{}" {
		t.Fatal("pending call lacks default arguments")
	}
}

func TestHistoryAndProviderSteps(t *testing.T) {
	e := func(typ conversation.EventType, f func(*conversation.Event)) conversation.Event {
		ev := conversation.Event{Type: typ}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	evs := []conversation.Event{
		e(conversation.EventTypeTurnStart, nil),
		e(conversation.EventTypeChatRequest, func(ev *conversation.Event) { ev.Content = "q1" }),
		e(conversation.EventTypeChatResponse, func(ev *conversation.Event) { ev.Reasoning = "think" }),
		e(conversation.EventTypeChatResponse, func(ev *conversation.Event) { ev.Message = "a" }),
		e(conversation.EventTypeToolCallRequest, func(ev *conversation.Event) { ev.CallID = "c1"; ev.Name = "ls" }),
		e(conversation.EventTypeToolCallRequest, func(ev *conversation.Event) { ev.CallID = "c2"; ev.Name = "ls" }),
		e(conversation.EventTypeToolCallResponse, func(ev *conversation.Event) { ev.CallID = "c1"; ev.Content = "r1" }),
		// killed here: c2 never answered
		e(conversation.EventTypeTurnStart, nil),
		e(conversation.EventTypeChatRequest, func(ev *conversation.Event) { ev.Content = "q2" }),
		e(conversation.EventTypeChatResponse, func(ev *conversation.Event) { ev.Message = "b" }),
		e(conversation.EventTypeTurnEnd, func(ev *conversation.Event) { ev.Outcome = conversation.OutcomeCompleted }),
	}
	h := History(evs)
	roles := ""
	for _, m := range h {
		roles += m.Role.String()[:1]
	}
	if roles != "uattua" {
		t.Fatalf("roles = %s (%+v)", roles, h)
	}
	if h[1].Text != "a" || h[1].Reasoning != "think" || len(h[1].ToolCalls) != 2 {
		t.Fatalf("assistant message = %+v", h[1])
	}
	if h[3].ToolCallID != "c2" || !h[3].IsError {
		t.Fatalf("unanswered call must get a synthetic error result: %+v", h[3])
	}
	if n := ProviderSteps(evs); n != 2 {
		t.Fatalf("ProviderSteps = %d, want 2", n)
	}
}

func TestLengthStopContinuesAndRecordsUsage(t *testing.T) {
	m := New(5)
	m.Start(Request{Root: "/r", Content: "hi", Author: "user", ContinueOnLength: 1})
	m.Delta("thinking", true)
	m.Signature("sig-")
	m.Signature("1")
	m.Delta("first half", false)
	acts := m.StreamDone(Step{Model: "m1", Stop: llm.StopLength, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 2}})
	if got := summary(acts); len(got) != 3 || got[2] != "R" {
		t.Fatalf("first call: %v", got)
	}
	r, txt := acts[0].Event, acts[1].Event
	if r.Reasoning != "thinking" || r.Signature != "sig-1" || r.Usage != nil || r.Model != "" {
		t.Errorf("reasoning block = %+v", r)
	}
	if txt.Message != "first half" || txt.Model != "m1" || txt.StopReason != "length" || txt.Usage == nil ||
		*txt.Usage != (conversation.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 2}) {
		t.Errorf("text block = %+v", txt)
	}
	m.Delta(" second half", false)
	acts = m.StreamDone(Step{Model: "m1", Stop: llm.StopLength, Usage: llm.Usage{InputTokens: 20, OutputTokens: 5}})
	if got := summary(acts); len(got) != 3 || got[1] != "P:turn_end(completed)" {
		t.Fatalf("second call: %v (the continue budget is spent)", got)
	}
	end := acts[1].Event
	if end.Model != "m1" || end.Usage == nil || *end.Usage != (conversation.Usage{InputTokens: 30, OutputTokens: 10, CacheReadTokens: 2}) {
		t.Errorf("turn_end = %+v", end)
	}
	if m.LastStop() != llm.StopLength {
		t.Errorf("last stop = %q", m.LastStop())
	}
}
