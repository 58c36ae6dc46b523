package turn

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

// fixture is base.json of testdata/compaction with the overlays of
// scenario appended.
func fixture(t *testing.T, scenario string) []conversation.Event {
	t.Helper()
	var evs []conversation.Event
	for _, name := range []string{"base", scenario} {
		b, err := os.ReadFile(filepath.Join("testdata", "compaction", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		part, err := eventcodec.DecodeEvents(b)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, part...)
	}
	return evs
}

func user(s string) llm.Message      { return llm.Message{Role: llm.RoleUser, Text: s} }
func assistant(s string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Text: s} }

// TestProjectCompaction checks the projected messages of each scenario of
// the Rust jp's compaction request snapshots.
func TestProjectCompaction(t *testing.T) {
	france := llm.Message{Role: llm.RoleAssistant, Text: "Paris.", Reasoning: "The user wants a capital city.",
		Thinking: []llm.Thinking{{Text: "The user wants a capital city."}}}
	call := func(args string) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(args)}}}
	}
	result := func(s string) llm.Message { return llm.Message{Role: llm.RoleTool, ToolCallID: "call_1", Text: s} }
	notes := "- buy milk\n- call dentist"
	tail := []llm.Message{user("And the capital of Germany?"), assistant("Berlin."), user("And of Italy?")}
	turn1 := func(args, res string) []llm.Message {
		return []llm.Message{user("Read my notes file."), call(args), result(res), assistant("Your notes mention milk and the dentist.")}
	}
	cat := func(parts ...[]llm.Message) []llm.Message {
		var out []llm.Message
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	head := []llm.Message{user("What is the capital of France?"), france}
	cases := map[string][]llm.Message{
		"baseline":            cat(head, turn1(`{"path":"notes.md"}`, notes), tail),
		"reasoning_strip":     cat([]llm.Message{user("What is the capital of France?"), assistant("Paris.")}, turn1(`{"path":"notes.md"}`, notes), tail),
		"tool_strip_request":  cat(head, turn1(`{}`, notes), tail),
		"tool_strip_response": cat(head, turn1(`{"path":"notes.md"}`, "[compacted] read_file: success"), tail),
		"tool_strip_both":     cat(head, turn1(`{}`, "[compacted] read_file: success"), tail),
		"tool_omit":           cat(head, []llm.Message{user("Read my notes file."), assistant("Your notes mention milk and the dentist.")}, tail),
		"summary": {user(SummaryRequest), assistant("Earlier: the user asked about France's capital and had their notes read."),
			user("And of Italy?")},
		"summary_overlap": {user(SummaryRequest), assistant("Summary A: France's capital and the start of the notes lookup."),
			user(SummaryRequest), assistant("Summary B: the notes lookup and Germany's capital."), user("And of Italy?")},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			got := History(fixture(t, name))
			if !reflect.DeepEqual(got, want) {
				gb, _ := json.MarshalIndent(got, "", " ")
				wb, _ := json.MarshalIndent(want, "", " ")
				t.Errorf("got\n%s\nwant\n%s", gb, wb)
			}
		})
	}
}

// TestProjectCompactionRules covers what the scenarios do not: the turn
// in progress is never compacted, a reset undoes the overlays before it,
// a later overlay wins over an earlier one, an omit that leaves two
// assistant messages side by side joins them.
func TestProjectCompactionRules(t *testing.T) {
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	ev := func(e conversation.Event) conversation.Event {
		n++
		e.ID, e.Timestamp = string(rune('a'+n)), at
		return e
	}
	turnStart := func() conversation.Event { return ev(conversation.Event{Type: conversation.EventTypeTurnStart}) }
	req := func(s string) conversation.Event {
		return ev(conversation.Event{Type: conversation.EventTypeChatRequest, Content: s})
	}
	resp := func(s string) conversation.Event {
		return ev(conversation.Event{Type: conversation.EventTypeChatResponse, Message: s})
	}
	end := func() conversation.Event {
		return ev(conversation.Event{Type: conversation.EventTypeTurnEnd, Outcome: conversation.OutcomeCompleted})
	}
	sum := "S"
	summary := conversation.NewCompactionEvent("s", at, conversation.Compaction{FromTurn: 0, ToTurn: 9, Summary: &sum})

	t.Run("pending turn", func(t *testing.T) {
		got := History([]conversation.Event{turnStart(), req("q1"), resp("a1"), end(), summary, turnStart(), req("q2")})
		want := []llm.Message{user(SummaryRequest), assistant("S"), user("q2")}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("reset", func(t *testing.T) {
		got := History([]conversation.Event{turnStart(), req("q1"), resp("a1"), end(), summary,
			conversation.NewCompactionResetEvent("r", at)})
		want := []llm.Message{user("q1"), assistant("a1")}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("later wins", func(t *testing.T) {
		other := "T"
		later := conversation.NewCompactionEvent("t", at, conversation.Compaction{FromTurn: 0, ToTurn: 0, Summary: &other})
		got := History([]conversation.Event{turnStart(), req("q1"), resp("a1"), end(), summary, later})
		want := []llm.Message{user(SummaryRequest), assistant("T")}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("omit joins", func(t *testing.T) {
		omit := conversation.NewCompactionEvent("o", at, conversation.Compaction{FromTurn: 0, ToTurn: 0,
			Tools: &conversation.ToolCallPolicy{Omit: true}})
		got := History([]conversation.Event{turnStart(), req("q1"), resp("Reading. "),
			ev(conversation.Event{Type: conversation.EventTypeToolCallRequest, CallID: "c", Name: "x", Arguments: json.RawMessage(`{}`)}),
			ev(conversation.Event{Type: conversation.EventTypeToolCallResponse, CallID: "c", Content: "r"}),
			resp("Done."), end(), omit})
		want := []llm.Message{user("q1"), assistant("Reading. Done.")}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
}
