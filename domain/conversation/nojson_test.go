package conversation

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestEventHasNoJSONForm: encoding/json refuses an Event or a Metadata,
// alone or inside a struct, rather than writing their Go fields: their
// stored forms are adapters/eventcodec's.
func TestEventHasNoJSONForm(t *testing.T) {
	for _, v := range []any{
		Event{Type: EventTypeTurnStart, ID: "a"},
		struct{ Events []Event }{[]Event{{ID: "a"}}},
		Metadata{Title: "t"},
		Summary{ID: "17000000000"},
	} {
		if _, err := json.Marshal(v); !errors.Is(err, errNoJSON) {
			t.Errorf("json.Marshal(%T) = %v, want the refusal", v, err)
		}
	}
	var e Event
	if err := json.Unmarshal([]byte(`{"type":"turn_start"}`), &e); !errors.Is(err, errNoJSON) {
		t.Errorf("json.Unmarshal into an Event = %v, want the refusal", err)
	}
	var m Metadata
	if err := json.Unmarshal([]byte(`{}`), &m); !errors.Is(err, errNoJSON) {
		t.Errorf("json.Unmarshal into a Metadata = %v, want the refusal", err)
	}
}
