package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestNewConfigDeltaStoredRust(t *testing.T) {
	ts := time.Date(2026, 3, 5, 20, 15, 56, 46306000, time.UTC)
	ev, err := conversation.NewConfigDelta("ev1", ts, json.RawMessage(`{"assistant": {"model": {"id": {"provider": "demo", "name": "echo"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Stored(ev, conversation.FormatRust)
	if err != nil {
		t.Fatal(err)
	}
	// The Rust jp's shape: type, then timestamp in its format (nanoseconds
	// without trailing zeros), then the delta; jp's event_id last.
	want := `{"type":"config_delta","timestamp":"2026-03-05 20:15:56.046306","delta":{"assistant":{"model":{"id":{"provider":"demo","name":"echo"}}}},"event_id":"ev1"}`
	if string(got) != want {
		t.Fatalf("rust form:\n got %s\nwant %s", got, want)
	}
	jp, err := Stored(ev, conversation.FormatJP)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(jp), `{"type":"config_delta","id":"ev1","timestamp":"2026-03-05T20:15:56.046306Z","delta":`) {
		t.Fatalf("jp form: %s", jp)
	}

	// Read back in either form: a config_delta with its ID and delta.
	for _, b := range [][]byte{got, jp} {
		var back conversation.Event
		if err := Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		d, ok := back.ConfigDelta()
		if !ok || back.ID != "ev1" || !back.Timestamp.Equal(ts) {
			t.Fatalf("read back %s: ok=%v id=%q ts=%v", b, ok, back.ID, back.Timestamp)
		}
		if string(d) != `{"assistant":{"model":{"id":{"provider":"demo","name":"echo"}}}}` {
			t.Fatalf("delta read back: %s", d)
		}
		if paths, _ := ConfigChanges(back); strings.Join(paths, ",") != "assistant.model.id" {
			t.Fatalf("changes: %v", paths)
		}
	}
}

func TestRustDeltaTime(t *testing.T) {
	for _, c := range []struct {
		ns   int
		want string
	}{
		{0, "2026-03-05 19:31:45.0"},
		{700000000, "2026-03-05 19:31:45.7"},
		{163800000, "2026-03-05 19:31:45.1638"},
		{123456789, "2026-03-05 19:31:45.123456789"},
	} {
		if got := formatRustDeltaTime(time.Date(2026, 3, 5, 19, 31, 45, c.ns, time.UTC)); got != c.want {
			t.Errorf("%d ns: got %q, want %q", c.ns, got, c.want)
		}
	}
}

func TestNewConfigDeltaRefusesEmpty(t *testing.T) {
	for _, d := range []string{`{}`, `[]`, `null`, `"x"`} {
		if _, err := conversation.NewConfigDelta("e", time.Unix(1, 0), json.RawMessage(d)); err == nil {
			t.Errorf("%s: no error", d)
		}
	}
}

// A config_delta written by another version, with fields this jp does not
// know, is written back as it was stored.
func TestConfigDeltaUnknownFieldsSurvive(t *testing.T) {
	raw := `{"type":"config_delta","timestamp":"2026-03-05 19:31:45.7","delta":{"assistant":{"name":"dev"}},"future":{"x":[1,2]}}`
	var e conversation.Event
	if err := Unmarshal([]byte(raw), &e); err != nil {
		t.Fatal(err)
	}
	for _, f := range []conversation.Format{conversation.FormatRust, conversation.FormatJP} {
		b, err := Stored(e, f)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != raw {
			t.Fatalf("%s: rewritten as %s", f, b)
		}
	}
}

// The deltas apply in the order of the stream, those after the last turn
// included; a delta that is not an object changes nothing.
func TestConfigDeltasInOrder(t *testing.T) {
	evs, err := DecodeEvents([]byte(`[
{"type":"config_delta","timestamp":"2026-03-05 19:31:45.7","delta":{"assistant":{"name":"a"}}},
{"type":"turn_start","timestamp":"2026-03-05 19:31:46.0"},
{"type":"chat_request","timestamp":"2026-03-05 19:31:46.1","content":"hi"},
{"type":"config_delta","timestamp":"2026-03-05 19:31:47.0","delta":"garbage"},
{"type":"chat_response","timestamp":"2026-03-05 19:31:48.0","message":"yo"},
{"type":"config_delta","timestamp":"2026-03-05 19:31:49.0","delta":{"assistant":{"name":"b"}}}
]`))
	if err != nil {
		t.Fatal(err)
	}
	ds := conversation.ConfigDeltas(evs)
	var got []string
	for _, d := range ds {
		got = append(got, string(d.Delta))
	}
	want := []string{`{"assistant":{"name":"a"}}`, `{}`, `{"assistant":{"name":"b"}}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %v, want %v", got, want)
	}
}
