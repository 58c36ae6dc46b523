package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzDecodeEvents reads events.json as it may be found in a checkout
// (committed, merged, edited by hand): no panic, and what decodes encodes
// and decodes again to as many events (unknown types and fields kept).
func FuzzDecodeEvents(f *testing.F) {
	for _, s := range []string{
		`[]`,
		`[{"type":"turn_start","id":"e1","timestamp":"2026-09-26T09:14:00Z","root":"/src/a"},
		  {"type":"chat_request","id":"e2","timestamp":"2026-09-26T09:14:00Z","content":"hi","author":"user"},
		  {"type":"chat_response","id":"e3","timestamp":"2026-09-26T09:14:01Z","message":"hello","reasoning":"r"},
		  {"type":"tool_call_request","id":"e4","timestamp":"2026-09-26T09:14:01Z","call_id":"c","name":"fs_read","arguments":{"path":"a"}},
		  {"type":"tool_call_response","id":"e5","timestamp":"2026-09-26T09:14:02Z","call_id":"c","content":"x","is_error":true},
		  {"type":"turn_end","id":"e6","timestamp":"2026-09-26T09:14:02Z","outcome":"stopped"}]`,
		`[{"type":"from_the_future","id":"x","timestamp":"2026-09-26T09:14:00Z","extra":{"a":[1,2]}}]`,
		`<<<<<<< HEAD
[]
=======
[{}]
>>>>>>> theirs`,
		`[{"type":"chat_request","timestamp":"not a time"}]`, `{"type":"x"}`, `[null]`, `[1]`,
		`[{"type":"turn_start","id":"a\"]}","timestamp":"2026-09-26T09:14:00Z"} , {"type":"x]","id":"b","t":[{"}":"["}]}]`,
		`[{"type":"chat_request","id":"e\u00e9","timestamp":"2026-09-26T09:14:00+02:00","content":"\"q\" \u2603 caf\u00e9 \ud83d\ude00 é","attachments":[{"source":"stdin","media_type":"text/plain","content":"a","size":1,"sha256":"x"}],"schema":{"type":"object"}},
		  {"type":"chat_response","event_id":"m","timestamp":"2025-02-19 21:20:00.000000","message":"\u0000ok","model":"m","usage":{"input_tokens":3,"output_tokens":4},"stop_reason":"end_turn"},
		  {"type":"tool_call_request","id":"c1","timestamp":"2025-02-19 21:20:00","name":"n","arguments":{"p":"YQ=="},"metadata":{"k":"dg=="}},
		  {"type":"tool_call_response","id":"c1","timestamp":"2025-02-19 21:20:00","content":"eA==","is_error":false,"files":["a","b"]},
		  {"type":"inquiry_request","id":"q","timestamp":"2025-02-19 21:20:00","question":{"text":"ok?","answer_type":{"type":"boolean"}}},
		  {"type":"inquiry_response","id":"q","timestamp":"2025-02-19 21:20:00","answer":true,"metadata":{"answer_type":"secret"}}]`,
		`[{"type":"turn_start","id":"a","TYPE":"turn_end","timestamp":"2026-09-26T09:14:00Z"}]`,
		`[{"type":"turn_start","id":"a","id":"b","timestamp":"2026-09-26T09:14:00Z","root":null,"ſchema":1}]`,
		"[{\"type\":\"chat_request\",\"id\":7,\"content\":\"bad \xff utf8\",\"timestamp\":\"2026-09-26T09:14:00Z\",\"x\":[1,{\"y\":\"\\\"\"}]}]",
		`[{"type":"x","id":"a"}}]`, `[{"type":"x","id":"a"},]`, `[{"type":"x","id":"a"}] x`, ` [ ] `, `[true]`, `["s"]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := DecodeEvents(b)
		slow, serr := decodeEventsSlow(b)
		if (err == nil) != (serr == nil) || (err != nil && err.Error() != serr.Error()) || !reflect.DeepEqual(evs, slow) {
			t.Fatalf("DecodeEvents = %d events, %v; json.Unmarshal of the array: %d, %v", len(evs), err, len(slow), serr)
		}
		var each []conversation.Event
		eerr := EachEvent(b, func(e conversation.Event) error {
			each = append(each, e)
			return nil
		})
		if len(each) != len(evs) && err == nil || (eerr == nil) != (err == nil) || (err != nil && eerr.Error() != err.Error()) || (err == nil && len(evs) > 0 && !reflect.DeepEqual(each, slices.Clip(evs))) {
			t.Fatalf("EachEvent = %d events, %v; DecodeEvents: %d, %v", len(each), eerr, len(evs), err)
		}
		if err != nil {
			return
		}
		if ref := decodeReference(t, b); !reflect.DeepEqual(evs, ref) {
			t.Fatalf("DecodeEvents and json.Unmarshal of each event differ:\n%#v\n%#v", evs, ref)
		}
		out, err := EncodeEvents(evs)
		if err != nil {
			t.Fatalf("decoded events do not encode: %v", err)
		}
		again, err := DecodeEvents(out)
		if err != nil || len(again) != len(evs) {
			t.Fatalf("re-decoding gave %d events, %v; want %d\n%s", len(again), err, len(evs), out)
		}
		_, _ = conversation.NewStream(evs)
	})
}

// FuzzMetadata reads metadata.json and metadata.local.json: no panic, and
// what decodes survives a rewrite (unknown keys kept).
func FuzzMetadata(f *testing.F) {
	for _, s := range []string{
		`{"title":"T","last_activated_at":"2026-09-26T09:14:00Z","pinned_at":null,"future":{"k":[1]}}`,
		`{"title":"\u001b]0;x\u0007","archived_at":"2026-09-26T09:14:00Z"}`,
		`{"last_root":{"path":"/a","last_used":"2026-09-26T09:14:00Z"},"unknown":1}`,
		`{}`, `[]`, `{"title":7}`, `{"last_activated_at":"yesterday"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m conversation.Metadata
		if UnmarshalMetadata(b, &m) == nil {
			out, err := MarshalMetadata(m)
			if err != nil {
				t.Fatalf("metadata does not encode: %v", err)
			}
			var again conversation.Metadata
			if err := UnmarshalMetadata(out, &again); err != nil {
				t.Fatalf("rewritten metadata does not decode: %v\n%s", err, out)
			}
			if again.Title != m.Title {
				t.Fatalf("title %q became %q", m.Title, again.Title)
			}
		}
		var l conversation.LocalMetadata
		if json.Unmarshal(b, (*LocalJSON)(&l)) == nil {
			out, err := json.Marshal(LocalJSON(l))
			if err != nil {
				t.Fatalf("local metadata does not encode: %v", err)
			}
			var again conversation.LocalMetadata
			if err := json.Unmarshal(out, (*LocalJSON)(&again)); err != nil {
				t.Fatalf("rewritten local metadata does not decode: %v\n%s", err, out)
			}
		}
		_, _ = conversation.CheckTitle(string(b), true)
	})
}

// TestDecodeEventsLong decodes an events.json long enough to be decoded
// in parallel: every event comes back as json.Unmarshal of the whole
// array gives it, in order, and a bad event anywhere gives its error.
func TestDecodeEventsLong(t *testing.T) {
	t.Parallel()
	var b []byte
	b = append(b, '[')
	const n = 5*decodeChunk + 17
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		switch i % 4 {
		case 0:
			b = append(b, `{"type":"turn_start","id":"t`...)
		case 1:
			b = append(b, `{"type":"chat_request","content":"with \"quotes\" and ] [ } {","id":"r`...)
		case 2:
			b = append(b, `{"type":"config_delta","delta":{"a":[1,{"b":null}]},"id":"c`...)
		default:
			b = append(b, `{"type":"chat_response","message":"m","timestamp":"2025-02-19 21:20:00.000000","event_id":"m`...)
		}
		b = append(b, []byte(strconv.Itoa(i))...)
		b = append(b, `","timestamp":"2026-09-26T09:14:00Z"}`...)
	}
	b = append(b, "\n]\n"...)
	evs, err := DecodeEvents(b)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := decodeEventsSlow(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != n || !reflect.DeepEqual(evs, slow) || !reflect.DeepEqual(evs, decodeReference(t, b)) {
		t.Fatalf("DecodeEvents gave %d events, json.Unmarshal %d, and they differ", len(evs), len(slow))
	}
	var each []conversation.Event
	if err := EachEvent(b, func(e conversation.Event) error { each = append(each, e); return nil }); err != nil || !reflect.DeepEqual(each, slices.Clip(evs)) {
		t.Fatalf("EachEvent gave %d events (%v), DecodeEvents %d, and they differ", len(each), err, len(evs))
	}
	stop := errors.New("stop")
	if err := EachEvent(b, func(e conversation.Event) error {
		if e.ID == "c4102" {
			return stop
		}
		return nil
	}); err != stop {
		t.Fatalf("EachEvent returned %v, want the error of fn as it is", err)
	}
	// A fault in the third window: fn has the events before it, then the
	// error json.Unmarshal gives.
	bad := bytes.Replace(b, []byte(`"id":"c9002"`), []byte(`"id":"c9002",`), 1)
	_, err = DecodeEvents(bad)
	_, serr := decodeEventsSlow(bad)
	if err == nil || serr == nil || err.Error() != serr.Error() {
		t.Fatalf("a bad event: DecodeEvents %v, json.Unmarshal %v", err, serr)
	}
	got := 0
	if err := EachEvent(bad, func(conversation.Event) error { got++; return nil }); err == nil || err.Error() != serr.Error() || got != 2*eachWindow {
		t.Fatalf("a bad event: EachEvent had %d events and returned %v, want %d and %v", got, err, 2*eachWindow, serr)
	}
}

// decodeReference decodes events.json b by json.Unmarshal alone, without
// the fast scanner of the stored form.
func decodeReference(t *testing.T, b []byte) []conversation.Event {
	t.Helper()
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		t.Fatalf("the array does not decode: %v", err)
	}
	evs := make([]conversation.Event, len(raws))
	for i, r := range raws {
		if err := decodeWith(&evs[i], r, true, false); err != nil {
			t.Fatalf("event %d does not decode: %v", i, err)
		}
	}
	conversation.FillIDs(evs)
	return evs
}

// eachRead is eachEventRead of b in chunks of the given size into a slice.
func eachRead(b []byte, chunk int) ([]conversation.Event, error) {
	var evs []conversation.Event
	err := eachEventRead(bytes.NewReader(b), chunk, false, func(e conversation.Event) error {
		evs = append(evs, e)
		return nil
	})
	return evs, err
}

// FuzzEachEventRead: reading events.json a chunk at a time (chunks of 1 to
// 64 bytes, so elements are cut everywhere) gives what EachEvent gives for
// the whole: the same events, or the same error.
func FuzzEachEventRead(f *testing.F) {
	f.Add([]byte(`[{"type":"turn_start","id":"a","timestamp":"2026-09-26T09:14:00Z"} , {"type":"x","id":"b"}]`), uint8(3))
	f.Add([]byte(`[{"type":"x","id":"a"},]`), uint8(1))
	f.Add([]byte("[\n{\"type\":\"chat_request\",\"id\":\"r\",\"timestamp\":\"2026-09-26T09:14:00Z\",\"content\":\"a \\\"]}\\\" b\"}\n]\n"), uint8(5))
	f.Add([]byte(`[1, 23]`), uint8(2))
	f.Add([]byte(`  `), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, chunk uint8) {
		size := int(chunk%64) + 1
		got, err := eachRead(b, size)
		if len(bytes.Trim(b, " \t\r\n")) == 0 { // JSON's white space
			if err != nil || len(got) != 0 {
				t.Fatalf("blank input: %d events, %v; want none", len(got), err)
			}
			return
		}
		var want []conversation.Event
		werr := EachEvent(b, func(e conversation.Event) error { want = append(want, e); return nil })
		if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("chunks of %d: error %v, EachEvent %v", size, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("chunks of %d: %d events, EachEvent %d, and they differ", size, len(got), len(want))
		}
	})
}

// A long events.json read a megabyte at a time: an event cut by a chunk's
// end, an event larger than a chunk, every event as DecodeEvents gives it.
func TestEachEventReadLong(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	b.WriteString("[\n")
	n := 0
	for b.Len() < 3*readChunk {
		if n > 0 {
			b.WriteString(",\n")
		}
		content := "question " + strconv.Itoa(n)
		if n == 4000 {
			content = strings.Repeat("big ", readChunk/2) // 2 MB: more than a chunk
		}
		fmt.Fprintf(&b, `{"type":"chat_request","id":"r%d","timestamp":"2026-09-26T09:14:00Z","content":%q,"attachments":[{"source":"a.txt","media_type":"text/plain","content":"x","size":1,"sha256":"s"}],"schema":{"type":"object"}}`, n, content)
		n++
	}
	b.WriteString("\n]\n")
	raw := b.Bytes()
	want, err := DecodeEvents(raw)
	if err != nil {
		t.Fatal(err)
	}
	var got []conversation.Event
	if err := EachEventRead(bytes.NewReader(raw), func(e conversation.Event) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != n || !reflect.DeepEqual(got, slices.Clip(want)) {
		t.Fatalf("EachEventRead gave %d events, DecodeEvents %d, and they differ", len(got), len(want))
	}
	// An error of fn in a later chunk, while the next one is being
	// decoded, ends the walk with that error.
	stop, seen := errors.New("stop"), 0
	err = EachEventRead(bytes.NewReader(raw), func(e conversation.Event) error {
		if seen++; e.ID == "r3000" {
			return stop
		}
		return nil
	})
	if err != stop || seen != 3001 {
		t.Fatalf("EachEventRead stopped after %d events with %v, want 3001 and the error of fn", seen, err)
	}
}
