package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"encoding/json"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func ev(typ conversation.EventType, id string, f func(*conversation.Event)) conversation.Event {
	e := conversation.Event{Type: typ, ID: id, Timestamp: t0}
	if f != nil {
		f(&e)
	}
	return e
}

func validTurn() []conversation.Event {
	return []conversation.Event{
		ev(conversation.EventTypeTurnStart, "1", func(e *conversation.Event) { e.Root = "/p" }),
		ev(conversation.EventTypeChatRequest, "2", func(e *conversation.Event) { e.Content = "hi" }),
		ev(conversation.EventTypeChatResponse, "3", func(e *conversation.Event) { e.Message = "calling" }),
		ev(conversation.EventTypeToolCallRequest, "4", func(e *conversation.Event) { e.CallID = "c1"; e.Name = "ls" }),
		ev(conversation.EventTypeToolCallRequest, "5", func(e *conversation.Event) { e.CallID = "c2"; e.Name = "ls" }),
		ev(conversation.EventTypeToolCallResponse, "6", func(e *conversation.Event) { e.CallID = "c2" }),
		ev(conversation.EventTypeToolCallResponse, "7", func(e *conversation.Event) { e.CallID = "c1" }),
		ev(conversation.EventTypeChatResponse, "8", func(e *conversation.Event) { e.Message = "done" }),
		ev(conversation.EventTypeTurnEnd, "9", func(e *conversation.Event) { e.Outcome = conversation.OutcomeCompleted }),
	}
}

func TestEventJSONCarriesOnlyItsFields(t *testing.T) {
	tests := []struct {
		name string
		e    conversation.Event
		want string
	}{
		{"turn_start", ev(conversation.EventTypeTurnStart, "a", func(e *conversation.Event) { e.Root = "/p" }),
			`{"type":"turn_start","id":"a","timestamp":"2026-11-29T10:00:00Z","root":"/p"}`},
		{"chat_request", ev(conversation.EventTypeChatRequest, "b", func(e *conversation.Event) { e.Content = "hi"; e.Author = "queued" }),
			`{"type":"chat_request","id":"b","timestamp":"2026-11-29T10:00:00Z","content":"hi","author":"queued"}`},
		{"chat_response message", ev(conversation.EventTypeChatResponse, "c", func(e *conversation.Event) { e.Message = "yo" }),
			`{"type":"chat_response","id":"c","timestamp":"2026-11-29T10:00:00Z","message":"yo"}`},
		{"chat_response reasoning", ev(conversation.EventTypeChatResponse, "d", func(e *conversation.Event) { e.Reasoning = "hmm" }),
			`{"type":"chat_response","id":"d","timestamp":"2026-11-29T10:00:00Z","reasoning":"hmm"}`},
		{"tool_call_request", ev(conversation.EventTypeToolCallRequest, "e", func(e *conversation.Event) { e.CallID = "c1"; e.Name = "ls"; e.Arguments = json.RawMessage(`{"a":1}`) }),
			`{"type":"tool_call_request","id":"e","timestamp":"2026-11-29T10:00:00Z","call_id":"c1","name":"ls","arguments":{"a":1}}`},
		{"tool_call_response false", ev(conversation.EventTypeToolCallResponse, "f", func(e *conversation.Event) { e.CallID = "c1"; e.Content = "ok" }),
			`{"type":"tool_call_response","id":"f","timestamp":"2026-11-29T10:00:00Z","content":"ok","call_id":"c1","is_error":false}`},
		{"inquiry_response redacted", ev(conversation.EventTypeInquiryResponse, "g", func(e *conversation.Event) {
			e.InquiryID = "q"
			e.Answer = conversation.RedactedAnswer
			e.AnswerType = "secret"
		}),
			`{"type":"inquiry_response","id":"g","timestamp":"2026-11-29T10:00:00Z","inquiry_id":"q","answer":{"redacted":true},"answer_type":"secret"}`},
		{"turn_end", ev(conversation.EventTypeTurnEnd, "h", func(e *conversation.Event) { e.Outcome = conversation.OutcomeStopped }),
			`{"type":"turn_end","id":"h","timestamp":"2026-11-29T10:00:00Z","outcome":"stopped"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(JSON(tt.e))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Fatalf("got  %s\nwant %s", b, tt.want)
			}
			var back JSON
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			b2, _ := json.Marshal(back)
			if string(b2) != tt.want {
				t.Fatalf("round trip changed it: %s", b2)
			}
		})
	}
}

func TestDecodeKeepsUnknownTypeRejectsMissingType(t *testing.T) {
	evs, err := DecodeEvents([]byte(`[{"type":"bogus","id":"x","extra":[1,2]}]`))
	if err != nil || len(evs) != 1 || evs[0].Type != conversation.EventTypeForeign || evs[0].Kind != "bogus" || evs[0].ID != "x" {
		t.Fatalf("unknown type: %+v, %v", evs, err)
	}
	if b, err := Stored(evs[0], conversation.FormatJP); err != nil || string(b) != `{"type":"bogus","id":"x","extra":[1,2]}` {
		t.Fatalf("unknown type stored as %s, %v", b, err)
	}
	if _, err := DecodeEvents([]byte(`[{"id":"x"}]`)); err == nil {
		t.Fatal("want error for missing type")
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	evs := validTurn()
	b, err := EncodeEvents(evs)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeEvents(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(evs) || back[3].CallID != "c1" {
		t.Fatalf("round trip: %+v", back)
	}
	empty, _ := EncodeEvents(nil)
	if strings.TrimSpace(string(empty)) != "[]" {
		t.Fatalf("empty = %q", empty)
	}
}

func TestMetadataJSONKeepsUnknownKeys(t *testing.T) {
	in := `{"title":"t","created_at":"2026-01-02T03:04:05Z","last_activated_at":"2026-01-02T03:04:05Z","pinned_at":null,"archived_at":null,"events_count":4,"zeta":{"a":1},"alpha":[1,2]}`
	var m conversation.Metadata
	if err := UnmarshalMetadata([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if m.Title != "t" || m.EventsCount != 4 || len(m.Extra) != 2 || string(m.Extra["zeta"]) != `{"a":1}` {
		t.Fatalf("decoded %+v", m)
	}
	out, err := MarshalMetadata(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"title":"t","created_at":"2026-01-02T03:04:05Z","last_activated_at":"2026-01-02T03:04:05Z","pinned_at":null,"archived_at":null,"events_count":4,"alpha":[1,2],"zeta":{"a":1}}`
	if string(out) != want {
		t.Errorf("encoded\n%s\nwant\n%s", out, want)
	}
	// Without unknown keys the document is exactly the known fields.
	m.Extra = nil
	plain, _ := MarshalMetadata(m)
	if strings.Contains(string(plain), "zeta") || !strings.HasSuffix(string(plain), `"events_count":4}`) {
		t.Errorf("plain = %s", plain)
	}
}

// TestExpiresAtStored: an expiry set since the document was read is
// written in the document's timestamp form.
func TestExpiresAtStored(t *testing.T) {
	now := time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)
	expiresAt := func(m conversation.Metadata) string {
		b, err := MarshalMetadata(m)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		return string(doc["expires_at"])
	}
	var m conversation.Metadata
	at := now.Add(time.Hour)
	m.SetExpiresAt(&at)
	if got := expiresAt(m); got != `"2026-03-05T13:00:00Z"` {
		t.Fatalf("jp form: %s", got)
	}
	r := conversation.Metadata{Format: conversation.FormatRust}
	r.SetExpiresAt(&now)
	if got := expiresAt(r); got != `"2026-03-05 12:00:00.000000"` || !r.Expired(now) {
		t.Fatalf("rust form: %s", got)
	}
}
