package conversation

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func ev(typ EventType, id string, f func(*Event)) Event {
	e := Event{Type: typ, ID: id, Timestamp: t0}
	if f != nil {
		f(&e)
	}
	return e
}

func TestParseID(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		name string
	}{
		{"17127583920", true, "decisecond timestamp"},
		{"1", true, "short"},
		{"", false, "empty"},
		{"../x", false, "traversal"},
		{"12/34", false, "slash"},
		{"1712758392a", false, "letter"},
		{"123456789012345678901", false, "too long"},
		{" 123", false, "space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseID(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseID(%q) err = %v, want ok=%v", tt.in, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidID) {
				t.Fatalf("error %v does not wrap ErrInvalidID", err)
			}
		})
	}
}

func TestNewIDIsDeciseconds(t *testing.T) {
	id := NewID(time.UnixMilli(1712758392050))
	if id != "17127583920" {
		t.Fatalf("NewID = %s", id)
	}
	if id.Next() != "17127583921" {
		t.Fatalf("Next = %s", id.Next())
	}
	if !id.Time().Equal(time.UnixMilli(1712758392000)) {
		t.Fatalf("Time = %v", id.Time())
	}
}

func validTurn() []Event {
	return []Event{
		ev(EventTypeTurnStart, "1", func(e *Event) { e.Root = "/p" }),
		ev(EventTypeChatRequest, "2", func(e *Event) { e.Content = "hi" }),
		ev(EventTypeChatResponse, "3", func(e *Event) { e.Message = "calling" }),
		ev(EventTypeToolCallRequest, "4", func(e *Event) { e.CallID = "c1"; e.Name = "ls" }),
		ev(EventTypeToolCallRequest, "5", func(e *Event) { e.CallID = "c2"; e.Name = "ls" }),
		ev(EventTypeToolCallResponse, "6", func(e *Event) { e.CallID = "c2" }),
		ev(EventTypeToolCallResponse, "7", func(e *Event) { e.CallID = "c1" }),
		ev(EventTypeChatResponse, "8", func(e *Event) { e.Message = "done" }),
		ev(EventTypeTurnEnd, "9", func(e *Event) { e.Outcome = OutcomeCompleted }),
	}
}

func TestStreamInvariants(t *testing.T) {
	base := validTurn()
	if err := Validate(base); err != nil {
		t.Fatalf("valid turn rejected: %v", err)
	}
	tests := []struct {
		name string
		evs  []Event
		want string
	}{
		{"chat_request without turn_start", base[1:2], "outside a turn"},
		{"response to unknown call", append(append([]Event{}, base[:3]...), ev(EventTypeToolCallResponse, "x", func(e *Event) { e.CallID = "nope" })), "unknown call"},
		{"answered twice", append(append([]Event{}, base[:7]...), ev(EventTypeToolCallResponse, "x", func(e *Event) { e.CallID = "c1" })), "answered twice"},
		{"turn_end with open call", append(append([]Event{}, base[:5]...), ev(EventTypeTurnEnd, "x", func(e *Event) { e.Outcome = OutcomeCompleted })), "unanswered"},
		{"duplicate event id", append(append([]Event{}, base[:2]...), ev(EventTypeChatResponse, "2", func(e *Event) { e.Message = "x" })), "duplicate event id"},
		{"bad outcome", append(append([]Event{}, base[:2]...), ev(EventTypeTurnEnd, "x", func(e *Event) { e.Outcome = "meh" })), "outcome"},
		{"missing id", []Event{{Type: EventTypeTurnStart, Timestamp: t0}}, "without an id"},
		{"missing timestamp", []Event{{Type: EventTypeTurnStart, ID: "a"}}, "without a timestamp"},
		{"both message and reasoning", append(append([]Event{}, base[:2]...), ev(EventTypeChatResponse, "x", func(e *Event) { e.Message = "a"; e.Reasoning = "b" })), "both"},
		{"call requested twice", append(append([]Event{}, base[:4]...), ev(EventTypeToolCallRequest, "x", func(e *Event) { e.CallID = "c1"; e.Name = "ls" })), "requested twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.evs)
			if err == nil || !errors.Is(err, ErrInvariant) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestUnfinishedTurnIsVisibleAndNextTurnMayStart(t *testing.T) {
	evs := validTurn()[:4] // killed after a tool call request
	s, err := NewStream(evs)
	if err != nil {
		t.Fatal(err)
	}
	if !s.InTurn() || len(s.Unanswered()) != 1 {
		t.Fatalf("InTurn=%v unanswered=%v", s.InTurn(), s.Unanswered())
	}
	if err := s.Apply(ev(EventTypeTurnStart, "n", nil)); err != nil {
		t.Fatalf("a new turn after a cut-off one: %v", err)
	}
}

func TestLastRootSameRecordIgnoresLive(t *testing.T) {
	yes, no := true, false
	a := LastRoot{Path: "/a", LastUsed: t0, Live: &yes}
	b := LastRoot{Path: "/a", LastUsed: t0.In(time.FixedZone("x", 3600)), Live: &no}
	if !a.SameRecord(b) {
		t.Fatal("records equal by path and last_used must match")
	}
	b.LastUsed = t0.Add(time.Second)
	if a.SameRecord(b) {
		t.Fatal("different last_used must not match")
	}
}
