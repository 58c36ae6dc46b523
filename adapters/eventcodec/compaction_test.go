package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"testing"
	"time"
)

// TestCompactionRustForm checks the event in the Rust jp's serialised
// form: its fields in its order, its timestamp format, what it reads back
// as, and that one read from a file (unknown fields included) is written
// back unchanged.
func TestCompactionRustForm(t *testing.T) {
	sum := "the summary"
	at := time.Date(2020, 1, 1, 0, 0, 0, 500_000_000, time.UTC)
	e := conversation.NewCompactionEvent("e1", at, conversation.Compaction{FromTurn: 1, ToTurn: 3, Summary: &sum, StripReasoning: true,
		Tools: &conversation.ToolCallPolicy{Request: true, Response: false}})
	b, err := Stored(e, conversation.FormatRust)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"compaction","timestamp":"2020-01-01 00:00:00.5","from_turn":1,"to_turn":3,"summary":{"summary":"the summary"},"reasoning":"strip","tool_calls":{"policy":"strip","request":true,"response":false},"event_id":"e1"}`
	if string(b) != want {
		t.Errorf("rust form\n got %s\nwant %s", b, want)
	}
	omit := conversation.NewCompactionEvent("e2", at.Truncate(time.Second), conversation.Compaction{FromTurn: 0, ToTurn: 0, Tools: &conversation.ToolCallPolicy{Omit: true}})
	b2, _ := Stored(omit, conversation.FormatRust)
	if want := `{"type":"compaction","timestamp":"2020-01-01 00:00:00.0","from_turn":0,"to_turn":0,"tool_calls":{"policy":"omit"},"event_id":"e2"}`; string(b2) != want {
		t.Errorf("omit\n got %s\nwant %s", b2, want)
	}
	for _, f := range []conversation.Format{conversation.FormatRust, conversation.FormatJP} {
		b, err := Stored(e, f)
		if err != nil {
			t.Fatal(err)
		}
		var back conversation.Event
		if err := Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		c := back.Compaction
		if back.ID != "e1" || !back.Timestamp.Equal(at) || c == nil || c.FromTurn != 1 || c.ToTurn != 3 ||
			c.Summary == nil || *c.Summary != sum || !c.StripReasoning || c.Tools == nil || !c.Tools.Request || c.Tools.Response {
			t.Errorf("%s form read back as %+v (%+v)", f, back, c)
		}
	}

	stored := `{"type":"compaction","timestamp":"2020-01-01 00:00:00.123","from_turn":0,"to_turn":2,"reasoning":"strip","future":{"x":[1,2]}}`
	var r conversation.Event
	if err := Unmarshal([]byte(stored), &r); err != nil {
		t.Fatal(err)
	}
	if r.Compaction == nil || !r.Compaction.StripReasoning || r.Compaction.ToTurn != 2 {
		t.Errorf("read %+v", r.Compaction)
	}
	for _, f := range []conversation.Format{conversation.FormatRust, conversation.FormatJP} {
		if b, _ := Stored(r, f); string(b) != stored {
			t.Errorf("%s rewrite changed the event:\n got %s\nwant %s", f, b, stored)
		}
	}
	var bad conversation.Event
	if err := Unmarshal([]byte(`{"type":"compaction","timestamp":"2020-01-01 00:00:00.0","reasoning":"keep"}`), &bad); err != nil {
		t.Fatal(err)
	}
	if bad.Type != conversation.EventTypeForeign || bad.Compaction != nil {
		t.Errorf("an unreadable compaction is kept and ignored, got %+v", bad)
	}
}
