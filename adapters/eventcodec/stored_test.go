package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// rustEvents is a hand-written events.json in the Rust jp's form: no IDs on
// turn_start, chat_request and chat_response; "id" as the call and inquiry
// ID; base64 tool arguments, results and metadata; an object question; a
// config_delta and a type nobody knows.
const rustEvents = `[
  {"timestamp": "2025-03-04 10:11:12.123456", "type": "config_delta", "delta": {"assistant": {"name": "dev"}}},
  {"timestamp": "2025-03-04 10:11:12.200000", "type": "turn_start"},
  {"timestamp": "2025-03-04 10:11:12.300000", "type": "chat_request", "content": "list files"},
  {"timestamp": "2025-03-04 10:11:13.000000", "type": "chat_response", "reasoning": "I should call a tool",
   "metadata": {"anthropic_thinking_signature": "c2lnLTEyMw=="}},
  {"timestamp": "2025-03-04 10:11:13.500000", "type": "tool_call_request", "id": "toolu_01", "name": "fs_list",
   "arguments": {"path": "c3Jj", "depth": 2, "globs": ["Ki5nbw=="]},
   "metadata": {"rendered_arguments": "cGF0aD1zcmM="}},
  {"timestamp": "2025-03-04 10:11:14.000000", "type": "inquiry_request", "id": "inq-1",
   "source": {"source": "tool", "name": "fs_list"},
   "question": {"text": "Recurse?", "answer_type": {"type": "boolean"}, "default": false}},
  {"timestamp": "2025-03-04 10:11:15.000000", "type": "inquiry_response", "id": "inq-1", "answer": true},
  {"timestamp": "2025-03-04 10:11:16.000000", "type": "tool_call_response", "id": "toolu_01",
   "content": "bWFpbi5nbwo=", "is_error": false},
  {"timestamp": "2025-03-04 10:11:17.000000", "type": "chat_response", "message": "src has main.go"},
  {"timestamp": "2025-03-04 10:11:18.000000", "type": "future_kind", "payload": {"x": 1}}
]`

func TestDecodeRustEvents(t *testing.T) {
	evs, err := DecodeEvents([]byte(rustEvents))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 10 {
		t.Fatalf("got %d events", len(evs))
	}
	want := time.Date(2025, 3, 4, 10, 11, 12, 123456000, time.UTC)
	if !evs[0].Timestamp.Equal(want) || evs[0].Type != conversation.EventTypeForeign || evs[0].Kind != "config_delta" {
		t.Fatalf("config_delta: %+v", evs[0])
	}
	for i, e := range evs {
		if e.ID == "" || !e.Legacy || e.Raw == nil {
			t.Errorf("event %d: ID %q Legacy %v Raw %d bytes", i, e.ID, e.Legacy, len(e.Raw))
		}
	}
	if evs[3].Reasoning != "I should call a tool" || string(evs[3].Metadata) != `{"anthropic_thinking_signature":"sig-123"}` {
		t.Errorf("reasoning: %+v metadata %s", evs[3], evs[3].Metadata)
	}
	req := evs[4]
	if req.Type != conversation.EventTypeToolCallRequest || req.CallID != "toolu_01" || req.Name != "fs_list" {
		t.Errorf("tool call: %+v", req)
	}
	var args map[string]any
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(args, map[string]any{"path": "src", "depth": 2.0, "globs": []any{"*.go"}}) {
		t.Errorf("arguments not decoded: %v", args)
	}
	if q := evs[5]; q.InquiryID != "inq-1" || q.Question != "Recurse?" || q.AnswerType != "boolean" {
		t.Errorf("inquiry: %+v", q)
	}
	if a := evs[6]; a.InquiryID != "inq-1" || string(a.Answer) != "true" {
		t.Errorf("answer: %+v", a)
	}
	if r := evs[7]; r.CallID != "toolu_01" || r.Content != "main.go\n" || r.IsError {
		t.Errorf("tool result: %+v", r)
	}
	if evs[9].Type != conversation.EventTypeForeign || evs[9].Kind != "future_kind" {
		t.Errorf("unknown kind: %+v", evs[9])
	}
	if err := conversation.Validate(evs); err != nil {
		t.Fatalf("a Rust history must replay: %v", err)
	}
}

// TestStoredKeepsEveryRustEvent: each event read is written back as the
// same JSON value.
func TestStoredKeepsEveryRustEvent(t *testing.T) {
	evs, err := DecodeEvents([]byte(rustEvents))
	if err != nil {
		t.Fatal(err)
	}
	var orig []json.RawMessage
	if err := json.Unmarshal([]byte(rustEvents), &orig); err != nil {
		t.Fatal(err)
	}
	for _, f := range []conversation.Format{conversation.FormatJP, conversation.FormatRust} {
		b, err := EncodeStoredEvents(evs, f)
		if err != nil {
			t.Fatal(err)
		}
		var back []json.RawMessage
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		for i := range orig {
			if !SameJSON(orig[i], back[i]) {
				t.Errorf("%s: event %d changed:\n%s\n%s", f, i, orig[i], back[i])
			}
		}
	}
}

// SameJSON compares two JSON texts as values (for tests).
func SameJSON(a, b []byte) bool {
	var x, y any
	dx, dy := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	dx.UseNumber()
	dy.UseNumber()
	return dx.Decode(&x) == nil && dy.Decode(&y) == nil && reflect.DeepEqual(x, y)
}

// TestRustFormatRoundTrip: what jp writes in the Rust form reads back as
// the same events, and carries the Rust jp's field shapes.
func TestRustFormatRoundTrip(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 678901000, time.UTC)
	evs := []conversation.Event{
		{Type: conversation.EventTypeTurnStart, ID: "e1", Timestamp: ts, Root: "/src/proj"},
		{Type: conversation.EventTypeChatRequest, ID: "e2", Timestamp: ts, Content: "hi", Author: conversation.AuthorUser},
		{Type: conversation.EventTypeChatResponse, ID: "e3", Timestamp: ts, Reasoning: "hmm"},
		{Type: conversation.EventTypeToolCallRequest, ID: "e4", Timestamp: ts, CallID: "c1", Name: "fs_read", Arguments: json.RawMessage(`{"path":"a.go","n":[1,"x"]}`)},
		{Type: conversation.EventTypeToolCallResponse, ID: "e5", Timestamp: ts, CallID: "c1", Content: "package a\n", IsError: true},
		{Type: conversation.EventTypeInquiryRequest, ID: "e6", Timestamp: ts, InquiryID: "q1", Question: "Token?", AnswerType: "secret"},
		{Type: conversation.EventTypeInquiryResponse, ID: "e7", Timestamp: ts, InquiryID: "q1", Answer: conversation.RedactedAnswer, AnswerType: "secret"},
		{Type: conversation.EventTypeChatResponse, ID: "e8", Timestamp: ts, Message: "done"},
		{Type: conversation.EventTypeTurnEnd, ID: "e9", Timestamp: ts, Outcome: conversation.OutcomeCompleted},
	}
	b, err := EncodeStoredEvents(evs, conversation.FormatRust)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"type":"turn_start","timestamp":"2026-01-02 03:04:05.678901","metadata":{"event_id":"ZTE=","root":"L3NyYy9wcm9q"}}`,
		`"type":"tool_call_request","timestamp":"2026-01-02 03:04:05.678901","event_id":"e4","id":"c1","name":"fs_read","arguments":{"path":"YS5nbw==","n":[1,"eA=="]}`,
		`"id":"c1","content":"cGFja2FnZSBhCg==","is_error":true`,
		`"question":{"answer_type":{"type":"text"},"text":"Token?"}`,
		`{"type":"turn_end","timestamp":"2026-01-02 03:04:05.678901","event_id":"e9","outcome":"completed"}`,
	} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("Rust form lacks %s:\n%s", want, b)
		}
	}
	back, err := DecodeEvents(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		g := back[i]
		g.Raw, g.Metadata = nil, nil
		w := evs[i]
		w.Timestamp = ts.Truncate(time.Microsecond)
		if w.Type == conversation.EventTypeToolCallRequest {
			if !SameJSON(g.Arguments, w.Arguments) {
				t.Errorf("arguments %s, want %s", g.Arguments, w.Arguments)
			}
			g.Arguments = w.Arguments
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, tt := range []struct {
		in   string
		rust bool
		ok   bool
	}{
		{"2025-03-04T10:11:12.5Z", false, true},
		{"2025-03-04 10:11:12.123456", true, true},
		{"2025-03-04 10:11:12", true, true},
		{"2025-03-04", false, false},
		{"yesterday", false, false},
	} {
		_, rust, err := ParseTime(tt.in)
		if (err == nil) != tt.ok || rust != tt.rust {
			t.Errorf("ParseTime(%q) = rust %v, %v", tt.in, rust, err)
		}
	}
}

func TestConfigChanges(t *testing.T) {
	evs, err := DecodeEvents([]byte(`[
{"type":"config_delta","timestamp":"2025-03-04 10:11:12.000000","delta":{"assistant":{"model":{"id":"x"}},"style":{"code":{"copy_link":true}}},"unsets":["assistant.tools"]},
{"type":"config_delta","timestamp":"2025-03-04 10:11:12.000000","conversation":{"title":{"generate":{"auto":false}}}},
{"type":"config_delta","timestamp":"2025-03-04 10:11:12.000000","op":"reset"},
{"type":"turn_start","timestamp":"2025-03-04 10:11:12.000000"}]`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]string{
		{"assistant.model.id", "style.code.copy_link", "-assistant.tools"},
		{"conversation.title.generate.auto"},
		{"reset"},
	} {
		got, ok := ConfigChanges(evs[i])
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("event %d: %v %v, want %v", i, got, ok, want)
		}
	}
	if _, ok := ConfigChanges(evs[3]); ok {
		t.Error("a turn_start is not a config change")
	}
}

// FuzzAppendJSONString: the encoder of big strings writes what
// encoding/json writes, and an event with a big field encodes to the same
// bytes as json.Marshal of its wire form.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a & b>", "\"q\" \\ \n\r\t\b\f\x01\x1f", "caf\xc3\xa9 \xff\xfe \u2028\u2029 \U0001F600", "\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendJSONString(%q) = %s, json.Marshal %s", s, got, want)
		}
		// Written in pieces, cut anywhere in s (inside a UTF-8 sequence
		// too), the string encodes the same.
		for _, piece := range []int{1, 2, 3, 5, 7, 64} {
			var got bytes.Buffer
			n, err := writeJSONString(&got, s, piece)
			if err != nil || n != int64(got.Len()) || !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("writeJSONString(%q) in pieces of %d = %s (%d, %v), json.Marshal %s", s, piece, got.Bytes(), n, err, want)
			}
		}
		big := strings.Repeat(s+"x", bigString/(len(s)+1)+1)
		bin := []byte(strings.Repeat(s+"\xff", bigString/(len(s)+1)+1))
		atts := []conversation.Attachment{
			{Source: "stdin", MediaType: "text/plain", Content: big, Size: int64(len(big)), SHA256: s},
			{Source: s, MediaType: "text/plain", Content: s},
			{Source: "shot.png", MediaType: "image/png", Data: bin, Size: int64(len(bin))},
		}
		for _, e := range []conversation.Event{
			{Type: conversation.EventTypeChatRequest, ID: "a\"content\":\"\"", Content: big, Author: "user", Schema: json.RawMessage(`{"content":""}`)},
			{Type: conversation.EventTypeChatRequest, ID: "a2", Content: s + "x", Attachments: atts},
			{Type: conversation.EventTypeChatRequest, ID: "a3", Content: big, Author: s, Attachments: atts},
			// A raw value holding a big value's stand-in: encoded whole.
			{Type: conversation.EventTypeChatRequest, ID: "a4", Content: big, Schema: json.RawMessage(`{"x":"` + bigMark + `0"}`)},
			{Type: conversation.EventTypeChatResponse, ID: "b", Message: big, Model: s},
			{Type: conversation.EventTypeChatResponse, ID: "c", Reasoning: big, Signature: s},
			{Type: conversation.EventTypeToolCallResponse, ID: "d", CallID: s, Content: big, IsError: true},
		} {
			got, err := Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			w := wireEvent{Type: e.Type, ID: e.ID, Timestamp: e.Timestamp.UTC()}
			switch e.Type {
			case conversation.EventTypeChatRequest:
				w.Content, w.Author, w.Schema, w.Attach = &e.Content, e.Author, e.Schema, e.Attachments
			case conversation.EventTypeChatResponse:
				if e.Reasoning != "" {
					w.Reasoning, w.Signature = &e.Reasoning, e.Signature
				} else {
					w.Message = &e.Message
				}
				w.Model = e.Model
			case conversation.EventTypeToolCallResponse:
				w.CallID, w.Content, w.IsError = e.CallID, &e.Content, &e.IsError
			}
			want, err := json.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s %s with a big field encodes differently from json.Marshal:\n%.300s\n%.300s", e.Type, e.ID, got, want)
			}
			line, err := Line(e, conversation.FormatJP)
			if err != nil {
				t.Fatal(err)
			}
			if e.ID == "a4" {
				if line.Split() {
					t.Fatal("a line whose raw value holds a stand-in is split")
				}
				continue
			}
			if !line.Split() || line.MinLen() > len(want) {
				t.Fatalf("%s: the big field is not kept apart (split %v, MinLen %d of %d)", e.Type, line.Split(), line.MinLen(), len(want))
			}
			for _, piece := range []int{3, 4096} {
				var streamed bytes.Buffer
				if n, err := line.writeTo(&streamed, piece); err != nil || n != int64(streamed.Len()) || !bytes.Equal(streamed.Bytes(), want) {
					t.Fatalf("%s written in pieces of %d differs from json.Marshal (%d bytes, %v)", e.Type, piece, n, err)
				}
			}
		}
	})
}
