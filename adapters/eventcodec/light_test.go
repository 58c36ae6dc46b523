package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"bytes"
	"reflect"
	"strings"
	"testing"
)

// headerRead is eachEventRead of b with light decoding, in chunks of the
// given size, into a slice.
func headerRead(b []byte, chunk int) ([]conversation.Event, error) {
	var evs []conversation.Event
	err := eachEventRead(bytes.NewReader(b), chunk, true, func(e conversation.Event) error {
		evs = append(evs, e)
		return nil
	})
	return evs, err
}

// withoutBig is e without the values a light decoding leaves out (and
// what the Rust jp's question gives: an inquiry's answer type).
func withoutBig(e conversation.Event) conversation.Event {
	e.Content, e.Message, e.Reasoning = "", "", ""
	e.Arguments, e.Answer, e.Schema = nil, nil, nil
	return e
}

// FuzzEachEventHeaderRead: the light read of events.json gives the
// events EachEvent gives, but for their big values, with the same Raw
// (the bytes a fork copies), or fails where it fails: a big value that
// would not decode is no more copied than read.
func FuzzEachEventHeaderRead(f *testing.F) {
	f.Add([]byte(rustEvents), uint8(63))
	f.Add([]byte(`[{"type":"chat_request","id":"a","timestamp":"2026-09-26T09:14:00Z","content":"a\"b\\\\"}]`), uint8(7))
	f.Add([]byte(`[{"type":"chat_request","id":"a","timestamp":"2026-09-26T09:14:00Z","content":5}]`), uint8(9))
	f.Add([]byte(`[{"type":"chat_request","id":"a","timestamp":"2026-09-26T09:14:00Z","content":"\x01"}]`), uint8(9))
	f.Add([]byte(`[{"type":"chat_response","id":"a","timestamp":"2026-09-26T09:14:00Z","message":"\q"}]`), uint8(9))
	f.Add([]byte(`[{"type":"chat_response","id":"a","timestamp":"2026-09-26T09:14:00Z","message":"\u12"}]`), uint8(9))
	f.Add([]byte(`[{"type":"tool_call_request","id":"a","timestamp":"2026-09-26T09:14:00Z","call_id":"c","name":"n","arguments":{"a":[1,}}]`), uint8(20))
	f.Add([]byte("[{\"type\":\"chat_request\",\"id\":\"a\",\n\"timestamp\":\"2026-09-26T09:14:00Z\",\"content\":\"x\"}]"), uint8(64))
	f.Fuzz(func(t *testing.T, b []byte, chunk uint8) {
		size := int(chunk%64) + 1
		got, err := headerRead(b, size)
		if len(bytes.Trim(b, " \t\r\n")) == 0 { // JSON's white space: no events, as EachEventRead
			if err != nil || len(got) != 0 {
				t.Fatalf("blank input: %d events, %v; want none", len(got), err)
			}
			return
		}
		var want []conversation.Event
		werr := EachEvent(b, func(e conversation.Event) error { want = append(want, e); return nil })
		if (err == nil) != (werr == nil) {
			t.Fatalf("chunks of %d: error %v, EachEvent %v", size, err, werr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%d events, EachEvent %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i].Raw, want[i].Raw) {
				t.Fatalf("event %d: Raw %q, EachEvent %q", i, got[i].Raw, want[i].Raw)
			}
			g, w := withoutBig(got[i]), withoutBig(want[i])
			if g.Type == conversation.EventTypeInquiryRequest || g.Type == conversation.EventTypeInquiryResponse {
				g.AnswerType, w.AnswerType = "", ""
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("event %d:\n%#v\nEachEvent:\n%#v", i, g, w)
			}
		}
	})
}

// A light read leaves the big values out (their fields are empty) and
// keeps what a fork looks at; an event on more than one line is decoded
// whole, since a copy encodes it again.
func TestEachEventHeaderReadLeavesBigValues(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	b := []byte(`[
{"type":"turn_start","id":"s","timestamp":"2026-09-26T09:14:00Z","root":"/r"},
{"type":"tool_call_request","id":"q","timestamp":"2026-09-26T09:14:01Z","call_id":"c","name":"fs_read","arguments":{"p":"` + big + `"}},
{"type":"tool_call_response","id":"r","timestamp":"2026-09-26T09:14:02Z","call_id":"c","content":"` + big + `","is_error":false,"future":1},
{"type":"chat_request","id":"m",
 "timestamp":"2026-09-26T09:14:03Z","content":"two lines"},
{"type":"turn_end","id":"e","timestamp":"2026-09-26T09:14:04Z","outcome":"completed"}
]`)
	evs, err := headerRead(b, readChunk)
	if err != nil || len(evs) != 5 {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	if e := evs[1]; e.CallID != "c" || e.Name != "fs_read" || e.Arguments != nil || len(e.Raw) < 3<<20 {
		t.Fatalf("tool call %+v", e.CallID)
	}
	if e := evs[2]; e.CallID != "c" || e.Content != "" || !bytes.Contains(e.Raw, []byte(`"future":1`)) {
		t.Fatalf("tool result call %q, content %d bytes", e.CallID, len(e.Content))
	}
	if evs[3].Content != "two lines" {
		t.Fatalf("the event on two lines: content %q", evs[3].Content)
	}
	if evs[4].Outcome != conversation.OutcomeCompleted || evs[0].Root != "/r" {
		t.Fatalf("turn %+v %+v", evs[0], evs[4])
	}
}
