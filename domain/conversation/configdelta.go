package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// KindConfigDelta is the wire name of a configuration change recorded in
// a conversation (the Rust jp's config_delta): the keys whose value a run
// changed, as a partial configuration object in the configuration's key
// spelling. A conversation's configuration is its base configuration
// (base_config.json, when there is one) with its deltas applied in order
// (ConfigDeltas).
const KindConfigDelta = "config_delta"

// NewConfigDelta makes a config_delta event setting the keys of delta (a
// JSON object; empty objects are not deltas). It is stored in the Rust
// jp's shape ({"type", "timestamp", "delta"}) in either format, with the
// event ID jp's reader needs ("event_id" in the Rust form, which the Rust
// reader passes over; "id" in jp's).
func NewConfigDelta(id string, ts time.Time, delta json.RawMessage) (Event, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(delta, &obj); err != nil || obj == nil {
		return Event{}, fmt.Errorf("config_delta: the delta is not a JSON object")
	}
	if len(obj) == 0 {
		return Event{}, fmt.Errorf("config_delta: the delta sets no key")
	}
	var d bytes.Buffer
	if err := json.Compact(&d, delta); err != nil {
		return Event{}, err
	}
	return Event{Type: EventTypeForeign, Kind: KindConfigDelta, ID: id, Timestamp: ts, Delta: d.Bytes()}, nil
}

// IsConfigDelta reports whether e is a config_delta event.
func (e Event) IsConfigDelta() bool {
	return e.Type == EventTypeForeign && e.Kind == KindConfigDelta
}

// ConfigDelta returns the partial configuration object a config_delta
// event sets (its "delta"), or ok false for any other event. A stored
// delta that is not an object gives an empty one: like the Rust jp, a
// delta it cannot read changes nothing.
func (e Event) ConfigDelta() (delta json.RawMessage, ok bool) {
	if !e.IsConfigDelta() {
		return nil, false
	}
	if len(e.Delta) > 0 {
		return e.Delta, true
	}
	var obj struct {
		Delta json.RawMessage `json:"delta"`
	}
	if json.Unmarshal(e.Raw, &obj) != nil || !bytes.HasPrefix(bytes.TrimSpace(obj.Delta), []byte("{")) {
		return json.RawMessage("{}"), true
	}
	return obj.Delta, true
}

// ConfigDeltas returns the deltas of evs in the order they apply: the
// order of the stream (the Rust jp's ConversationStream::config merges
// every delta from first to last, those after the last turn included).
func ConfigDeltas(evs []Event) []ConfigDeltaAt {
	var out []ConfigDeltaAt
	for _, e := range evs {
		if d, ok := e.ConfigDelta(); ok {
			out = append(out, ConfigDeltaAt{ID: e.ID, Timestamp: e.Timestamp, Delta: d})
		}
	}
	return out
}

// ConfigDeltaAt is one config_delta of a conversation.
type ConfigDeltaAt struct {
	ID        string
	Timestamp time.Time
	Delta     json.RawMessage
}
