package conversation

import (
	"slices"
	"testing"
	"time"
)

func TestTrimLastRequest(t *testing.T) {
	ev := func(id string, typ EventType, kind string) Event {
		return Event{ID: id, Type: typ, Kind: kind, Timestamp: time.Unix(1, 0), Outcome: OutcomeCompleted}
	}
	evs := []Event{
		ev("s1", EventTypeTurnStart, ""), ev("q1", EventTypeChatRequest, ""), ev("a1", EventTypeChatResponse, ""), ev("e1", EventTypeTurnEnd, ""),
		ev("d1", EventTypeForeign, KindConfigDelta),
		ev("s2", EventTypeTurnStart, ""), ev("q2", EventTypeChatRequest, ""), ev("t2", EventTypeToolCallRequest, ""),
		ev("c2", EventTypeForeign, KindCompaction), ev("r2", EventTypeToolCallResponse, ""), ev("a2", EventTypeChatResponse, ""),
		ev("x2", EventTypeForeign, "from_a_newer_jp"), ev("e2", EventTypeTurnEnd, ""),
	}
	kept, req, ok := TrimLastRequest(evs)
	if !ok || req.ID != "q2" {
		t.Fatalf("request = %q, %v; want q2", req.ID, ok)
	}
	var ids []string
	for _, e := range kept {
		ids = append(ids, e.ID)
	}
	want := []string{"s1", "q1", "a1", "e1", "d1", "c2", "x2"}
	if !slices.Equal(ids, want) {
		t.Fatalf("kept %v, want %v", ids, want)
	}
	if _, err := NewStream(kept); err != nil {
		t.Fatalf("kept events break the stream's rules: %v", err)
	}
	// Twice: the first turn goes too.
	kept, req, ok = TrimLastRequest(kept)
	if !ok || req.ID != "q1" || len(kept) != 3 {
		t.Fatalf("second trim: %v %q %d", ok, req.ID, len(kept))
	}
	// No request: nothing changes.
	if k, _, ok := TrimLastRequest(kept); ok || len(k) != 3 {
		t.Fatalf("trim without a request: %v %d", ok, len(k))
	}
}
