package pluginwire

import (
	"encoding/json"
	"errors"
	"fmt"
	. "github.com/jpcli/jp/domain/plugin"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

func ptr[T any](v T) *T { return &v }

// decodeAs decodes line as a request of the type of want and returns it.
func decodeAs(t *testing.T, line string, want Message) Message {
	t.Helper()
	v := reflect.New(reflect.TypeOf(want))
	if err := json.Unmarshal([]byte(line), v.Interface()); err != nil {
		t.Fatalf("decode %s: %v", line, err)
	}
	if r, ok := v.Interface().(Request); ok {
		if err := r.Validate(); err != nil {
			t.Fatalf("validate %s: %v", line, err)
		}
	}
	return v.Elem().Interface().(Message)
}

// TestGoldenDecode decodes the literal JSON of docs/plugins.md's examples (delegated
// turns included) into their types.
func TestGoldenDecode(t *testing.T) {
	ts := time.Date(2025, 7, 20, 10, 30, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		line string
		want Message
	}{
		// the four prompt kinds and the three outcomes.
		{"prompt confirm", `{ "type": "prompt", "kind": "confirm", "message": "Delete 14 stale entries?", "default": false }`,
			Prompt{Kind: PromptKindConfirm, Message: "Delete 14 stale entries?", Default: false}},
		{"prompt select", `{ "type": "prompt", "kind": "select", "message": "Which branch?", "options": ["main", "develop", "release"] }`,
			Prompt{Kind: PromptKindSelect, Message: "Which branch?", Options: []string{"main", "develop", "release"}}},
		{"prompt text", `{ "type": "prompt", "kind": "text", "message": "Commit message" }`,
			Prompt{Kind: PromptKindText, Message: "Commit message"}},
		{"prompt secret", `{ "type": "prompt", "kind": "secret", "message": "Registry token" }`,
			Prompt{Kind: PromptKindSecret, Message: "Registry token"}},
		{"answered", `{"type": "prompt_response", "outcome": "answered", "value": true}`,
			PromptResponse{Outcome: PromptOutcomeAnswered, Value: true}},
		{"cancelled", `{"type": "prompt_response", "outcome": "cancelled"}`,
			PromptResponse{Outcome: PromptOutcomeCancelled}},
		{"unavailable", `{"type": "prompt_response", "outcome": "unavailable", "reason": "no interactive terminal"}`,
			PromptResponse{Outcome: PromptOutcomeUnavailable, Reason: "no interactive terminal"}},
		// Delegated turns.
		{"ready", `{"type":"ready"}`, Ready{}},
		{"exit", `{"type": "exit", "code": 1, "reason": "use jp serve --web to start the web server"}`,
			Exit{Code: 1, Reason: "use jp serve --web to start the web server"}},
		{"print markdown", `{"type": "print", "channel": "content", "format": "markdown", "text": "## Results\n\n- item 1\n"}`,
			Print{Channel: "content", Format: PrintFormatMarkdown, Text: "## Results\n\n- item 1\n"}},
		{"print code", `{"type": "print", "channel": "content", "format": "code", "language": "rust", "text": "fn main() {}"}`,
			Print{Channel: "content", Format: PrintFormatCode, Language: "rust", Text: "fn main() {}"}},
		{"print defaults", `{"type":"print","text":"hello\n"}`, Print{Text: "hello\n"}},
		{"log", `{"type": "log", "level": "info", "message": "Web server listening", "fields": {"addr": "127.0.0.1:3141"}}`,
			Log{Level: "info", Message: "Web server listening", Fields: map[string]any{"addr": "127.0.0.1:3141"}}},
		{"list_conversations", `{"type": "list_conversations", "id": "a"}`, ListConversations{ID: "a"}},
		{"read_events", `{"type": "read_events", "id": "b", "conversation": "17127583920"}`,
			ReadEvents{ID: "b", Conversation: "17127583920"}},
		{"read_config", `{"type": "read_config", "path": "assistant.model"}`, ReadConfig{Path: "assistant.model"}},
		{"read_draft", `{"type":"read_draft","conversation":"17127583920"}`, ReadDraft{Conversation: "17127583920"}},
		{"write_draft", `{"type":"write_draft","conversation":"17127583920","text":"Run the tests.","revision":"r1"}`,
			WriteDraft{Conversation: "17127583920", Text: ptr("Run the tests."), Revision: "r1"}},
		{"create_conversation", `{"type":"create_conversation","title":"Notes","local":true}`, CreateConversation{Title: "Notes", Local: true}},
		{"set_title", `{"type":"set_title","conversation":"17127583920","title":"Refactor config"}`,
			SetTitle{Conversation: "17127583920", Title: "Refactor config"}},
		{"archive", `{"type":"archive","conversation":"17127583920"}`, Archive{Conversation: "17127583920"}},
		{"unarchive", `{"type":"unarchive","conversation":"17127583920"}`, Unarchive{Conversation: "17127583920"}},
		{"lock", `{"type":"lock","id":"l","conversation":"17127583920"}`, Lock{ID: "l", Conversation: "17127583920"}},
		{"unlock", `{"type":"unlock","conversation":"17127583920"}`, Unlock{Conversation: "17127583920"}},
		{"query", `{"type":"query","id":"q","conversation":"17127583920","content":"hi"}`,
			Query{ID: "q", Conversation: "17127583920", Content: "hi"}},
		{"interrupt", `{"type":"interrupt","conversation":"17127583920"}`, Interrupt{Conversation: "17127583920"}},
		{"respond", `{"type":"respond","call_id":"c1","action":"approve"}`, Respond{CallID: "c1", Action: "approve"}},
		{"list_workspaces", `{ "type": "list_workspaces", "id": "a" }`, ListWorkspaces{ID: "a"}},
		{"conversations", `{"type": "conversations", "data": [{"id": "17127583920", "title": "Refactor config", "last_activated_at": "2025-07-20T10:30:00Z", "events_count": 42}]}`,
			Conversations{Data: []ConversationSummary{{ID: "17127583920", Title: "Refactor config", LastActivatedAt: ts, EventsCount: 42}}}},
		{"config", `{"type": "config", "path": "assistant.model", "data": {"id": "demo/echo"}}`,
			Config{Path: "assistant.model", Data: json.RawMessage(`{"id": "demo/echo"}`)}},
		{"error", `{"type": "error", "request": "read_events", "message": "conversation not found: 999"}`,
			Error{Request: "read_events", Message: "conversation not found: 999"}},
		{"draft", `{"type":"draft","conversation":"17127583920","text":"hi","revision":"r2"}`,
			Draft{Conversation: "17127583920", Text: "hi", Revision: "r2"}},
		{"draft_written", `{"type":"draft_written","id":"w","revision":"r3"}`, DraftWritten{ID: "w", Revision: "r3"}},
		{"init", `{"type": "init", "version": 2, "workspace": {"root": "/path/to/project", "storage": "/path/to/project/.jp", "id": "a1b2c3d"},
			"config": {"plugins": {}}, "args": ["--web"], "log_level": 3, "options": {}, "output_format": "text",
			"paths": {"user_data": "/d", "user_config": "/c", "user_workspace": "/d/workspace/p-a1b2c3d"}}`,
			Init{Version: 2, Workspace: &WorkspaceInfo{Root: "/path/to/project", Storage: "/path/to/project/.jp", ID: "a1b2c3d"},
				Config: json.RawMessage(`{"plugins": {}}`), Args: []string{"--web"}, LogLevel: LogLevelDebug, Options: json.RawMessage(`{}`),
				OutputFormat: "text", Paths: Paths{UserData: "/d", UserConfig: "/c", UserWorkspace: "/d/workspace/p-a1b2c3d"}}},
		{"describe", `{"type":"describe","name":"titles","version":"0.1.0","description":"List conversation titles","command":["titles"],"protocol_version":1,"help":"Usage: jp titles"}`,
			Description{Manifest: Manifest{Name: "titles", Version: "0.1.0", Description: "List conversation titles", Command: []string{"titles"}, ProtocolVersion: 1, Help: "Usage: jp titles"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, err := DecodeHeader([]byte(tt.line))
			if err != nil || h.Type != tt.want.MessageType() {
				t.Fatalf("header = %+v, %v; want type %s", h, err, tt.want.MessageType())
			}
			got := decodeAs(t, tt.line, tt.want)
			if !reflect.DeepEqual(normalize(t, got), normalize(t, tt.want)) {
				t.Fatalf("decoded\n%#v\nwant\n%#v", got, tt.want)
			}
			// Encoding and decoding again gives the same value.
			b, err := Encode(got)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), `{"type":"`+tt.want.MessageType()+`"`) {
				t.Fatalf("encoded %s does not start with its type", b)
			}
			again := decodeAs(t, string(b), tt.want)
			if !reflect.DeepEqual(normalize(t, again), normalize(t, tt.want)) {
				t.Fatalf("round trip of %s gave %#v", b, again)
			}
		})
	}
}

// normalize compacts raw JSON fields so that whitespace does not matter.
func normalize(t *testing.T, m Message) any {
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEncodeShapes pins the exact bytes of host messages.
func TestEncodeShapes(t *testing.T) {
	for _, tt := range []struct {
		msg  Message
		want string
	}{
		{PromptResponse{Outcome: PromptOutcomeAnswered, Value: false}, `{"type":"prompt_response","outcome":"answered","value":false}`},
		{PromptResponse{ID: "7", Outcome: PromptOutcomeAnswered, Value: "main"}, `{"type":"prompt_response","id":"7","outcome":"answered","value":"main"}`},
		{PromptResponse{Outcome: PromptOutcomeCancelled}, `{"type":"prompt_response","outcome":"cancelled"}`},
		{PromptResponse{Outcome: PromptOutcomeUnavailable, Reason: "no interactive terminal"}, `{"type":"prompt_response","outcome":"unavailable","reason":"no interactive terminal"}`},
		{Shutdown{}, `{"type":"shutdown"}`},
		{DescribeRequest{}, `{"type":"describe"}`},
		{Error{ID: "b", Request: "read_events", Message: "conversation 9 not found"}, `{"type":"error","id":"b","request":"read_events","message":"conversation 9 not found"}`},
		{TitleSet{}, `{"type":"title_set"}`},
		{Locked{ID: "x"}, `{"type":"locked","id":"x"}`},
		{Print{Text: "hi\n"}, `{"type":"print","text":"hi\n"}`},
		{Exit{}, `{"type":"exit","code":0}`},
		{Draft{Conversation: "1", Text: "", Revision: ""}, `{"type":"draft","conversation":"1","text":"","revision":""}`},
		{Conversations{Data: []ConversationSummary{}}, `{"type":"conversations","data":[]}`},
	} {
		b, err := Encode(tt.msg)
		if err != nil || string(b) != tt.want {
			t.Errorf("Encode(%#v) = %s, %v; want %s", tt.msg, b, err, tt.want)
		}
	}
	if _, err := Encode(PromptResponse{}); err == nil {
		t.Error("a prompt response without an outcome must not encode")
	}
}

func TestHeaderCarriesWorkspaceRef(t *testing.T) {
	// the addressed request.
	h, err := DecodeHeader([]byte(`{ "type": "read_events", "id": "b", "workspace": { "id": "a1b2c3d" }, "conversation": "17127583920" }`))
	if err != nil || h.Workspace == nil || *h.Workspace != (workspace.Ref{ID: "a1b2c3d"}) || h.ID != "b" {
		t.Fatalf("header = %+v, %v", h, err)
	}
}

func TestSummaryOf(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	s := SummaryOf(conversation.Summary{ID: "17", Metadata: conversation.Metadata{Title: "T", LastActivatedAt: at, ArchivedAt: &at, EventsCount: 4}})
	b, _ := json.Marshal(s)
	want := `{"id":"17","title":"T","last_activated_at":"2026-01-02T02:04:05Z","archived_at":"2026-01-02T02:04:05Z","events_count":4}`
	if string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
}

// TestBadInput: each malformed line gives an error a host can answer.
func TestBadInput(t *testing.T) {
	header := []struct {
		name, line string
		want       error
		msg        string
	}{
		{"garbage", "\x00\xff\xfe", ErrNotJSON, "UTF-8"},
		{"not json", "hello world", ErrNotJSON, "invalid character"},
		{"array", `[1,2]`, ErrNotJSON, "JSON object"},
		{"no type", `{"id":"1"}`, ErrNoType, "no \"type\""},
		{"numeric id", `{"type":"ready","id":5}`, ErrBadField, "id must be a string"},
	}
	for _, tt := range header {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeHeader([]byte(tt.line))
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("DecodeHeader(%q) = %v; want %v containing %q", tt.line, err, tt.want, tt.msg)
			}
		})
	}
	if h, _ := DecodeHeader([]byte(`{"type":"read_events","id":"k","workspace":7}`)); h.ID != "k" || h.Type != "read_events" {
		t.Fatalf("a bad header field must still give type and id, got %+v", h)
	}
	requests := []struct {
		name string
		err  error
		msg  string
	}{
		{"missing conversation", decodeErr[ReadEvents](`{"type":"read_events"}`), "conversation is required"},
		{"path characters", decodeErr[ReadEvents](`{"type":"read_events","conversation":"../../etc"}`), "invalid conversation ID"},
		{"wrong type", decodeErr[ReadEvents](`{"type":"read_events","conversation":17}`), "conversation must be a string"},
		{"select without options", decodeErr[Prompt](`{"type":"prompt","kind":"select","message":"Pick"}`), "non-empty array"},
		{"select with empty options", decodeErr[Prompt](`{"type":"prompt","kind":"select","message":"Pick","options":[]}`), "non-empty array"},
		{"unknown kind", decodeErr[Prompt](`{"type":"prompt","kind":"multi","message":"Pick"}`), "unknown prompt kind"},
		{"kind not a string", decodeErr[Prompt](`{"type":"prompt","kind":3,"message":"Pick"}`), "kind must be a string"},
		{"missing kind", decodeErr[Prompt](`{"type":"prompt","message":"Pick"}`), "kind is required"},
		{"confirm default string", decodeErr[Prompt](`{"type":"prompt","kind":"confirm","message":"Ok?","default":"yes"}`), "must be a boolean"},
		{"secret default", decodeErr[Prompt](`{"type":"prompt","kind":"secret","message":"Token","default":"x"}`), "takes no default"},
		{"write_draft without text", decodeErr[WriteDraft](`{"type":"write_draft","conversation":"1"}`), "text is required"},
		{"exit code", decodeErr[Exit](`{"type":"exit","code":300}`), "between 0 and 255"},
		{"log level", decodeErr[Log](`{"type":"log","level":"loud","message":"x"}`), "unknown log level"},
		{"print format", decodeErr[Print](`{"type":"print","text":"x","format":"html"}`), "unknown print format"},
	}
	for _, tt := range requests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, ErrBadField) || !strings.Contains(tt.err.Error(), tt.msg) {
				t.Fatalf("err = %v; want ErrBadField containing %q", tt.err, tt.msg)
			}
		})
	}
}

func decodeErr[T any, PT interface {
	*T
	Request
}](line string) error {
	_, err := Decode[T, PT]([]byte(line))
	return err
}

func TestEnums(t *testing.T) {
	for _, k := range []PromptKind{PromptKindConfirm, PromptKindSelect, PromptKindText, PromptKindSecret} {
		if got, err := ParsePromptKind(k.String()); err != nil || got != k {
			t.Errorf("ParsePromptKind(%s) = %v, %v", k, got, err)
		}
	}
	for _, o := range []PromptOutcome{PromptOutcomeAnswered, PromptOutcomeCancelled, PromptOutcomeUnavailable} {
		if got, err := ParsePromptOutcome(o.String()); err != nil || got != o {
			t.Errorf("ParsePromptOutcome(%s) = %v, %v", o, got, err)
		}
	}
	if PromptKindUnknown.String() != "unknown" || PrintFormatUnknown.String() != "unknown" {
		t.Error("zero values must read unknown")
	}
	if _, err := ParsePromptKind("unknown"); err == nil {
		t.Error("unknown must not parse")
	}
	if l, err := ParseLogLevel("trace"); err != nil || l != LogLevelTrace || l.String() != "trace" {
		t.Errorf("ParseLogLevel(trace) = %v, %v", l, err)
	}
}

func TestRedacted(t *testing.T) {
	r := PromptResponse{ID: "1", Outcome: PromptOutcomeAnswered, Value: "hunter2"}.Redacted()
	b, _ := Encode(r)
	if strings.Contains(string(b), "hunter2") || !strings.Contains(string(b), "[redacted]") {
		t.Fatalf("redacted = %s", b)
	}
	if r := (PromptResponse{Outcome: PromptOutcomeCancelled}).Redacted(); r.Value != nil {
		t.Fatal("a response without a value must stay without one")
	}
}

// TestFastPathsMatchEncodingJSON: the reflection-free encoders and the
// header reader agree with encoding/json.
func TestFastPathsMatchEncodingJSON(t *testing.T) {
	msgs := []Message{
		ReadConfig{}, ReadConfig{ID: "1a"}, ReadConfig{ID: "1a", Path: "assistant.model"}, ReadConfig{Path: `quoted."k<y>"`},
		ReadConfig{ID: "é"}, Config{Data: json.RawMessage(`5`)}, Config{ID: "7", Path: "a.b", Data: json.RawMessage(`{"id":"demo/echo","n":[1,2]}`)},
		Config{ID: "7", Data: json.RawMessage(`{ "spaced": true }`)}, Config{Data: json.RawMessage(`"<html>"`)},
		Config{Data: json.RawMessage(`"\u00e9é"`)}, Config{Data: json.RawMessage(`{"a":"x\"y"}`)}, Config{ID: "x", Data: nil},
	}
	for _, m := range msgs {
		got, err := Encode(m)
		if err != nil {
			if _, merr := json.Marshal(m); merr == nil {
				t.Errorf("Encode(%#v): %v", m, err)
			}
			continue
		}
		body, _ := json.Marshal(m)
		if want := withType(m.MessageType(), body); string(got) != string(want) {
			t.Errorf("Encode(%#v) = %s, want %s", m, got, want)
		}
	}
	for _, line := range []string{
		`{"type":"config","id":"7","path":"a","data":{"id":"x","type":"y"}}`, `{"type":"ready"}`, `{"type":"exit","code":0}`,
		`{"type":"x","id":""}`, `{"type":"x","id":"a\"b"}`, `{"type":"x","id":5}`, `{"type":"x","workspace":{"id":"a1b2c3d"}}`,
		`{"type":"x","id":"1"`, `{ "type":"x"}`, `{"type":"é"}`, `{"type":"x"}garbage`,
	} {
		fast, fok := fastHeader([]byte(line))
		var slow Header
		serr := json.Unmarshal([]byte(line), &slow)
		if fok && (serr != nil || fast.Type != slow.Type || fast.ID != slow.ID) {
			// A fast header may be given for a line that is not JSON: the
			// full decode that follows refuses it.
			if serr == nil {
				t.Errorf("fastHeader(%s) = %+v, encoding/json says %+v", line, fast, slow)
			}
		}
	}
}

func TestUnmarshalConfigMatchesEncodingJSON(t *testing.T) {
	for _, line := range []string{
		`{"type":"config","id":"7","path":"a.b","data":{"id":"x","n":[1,2]}}`,
		`{"type":"config","data":5}`,
		`{"type":"config","id":"7","data":{"a":1},"later":true}`,
		`{"type":"config","path":"a\"b","data":"s"}`,
		`{"type":"config","id":"7","data":{"a":1}} `,
		`{"type":"config","id":"7","data":}`,
	} {
		var fast, slow Config
		ferr := Unmarshal([]byte(line), &fast)
		serr := json.Unmarshal([]byte(line), &slow)
		if (ferr == nil) != (serr == nil) || normalizeRaw(fast) != normalizeRaw(slow) {
			t.Errorf("Unmarshal(%s) = %+v, %v; encoding/json %+v, %v", line, fast, ferr, slow, serr)
		}
	}
}

func normalizeRaw(c Config) string {
	var v any
	_ = json.Unmarshal(c.Data, &v)
	return fmt.Sprintf("%s|%s|%v", c.ID, c.Path, v)
}

func TestAddressedReadConfigKeepsWorkspace(t *testing.T) {
	line, err := Encode(ReadConfig{ID: "a", Path: "x", Workspace: &workspace.Ref{ID: "abc1234", Root: "/r"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"read_config","id":"a","workspace":{"id":"abc1234","root":"/r"},"path":"x"}`
	if string(line) != want {
		t.Fatalf("got %s\nwant %s", line, want)
	}
	h, err := DecodeHeader(line)
	if err != nil || h.Workspace == nil || h.Workspace.Root != "/r" {
		t.Fatalf("header %+v, %v", h, err)
	}
}

// TestDecodeHeaderLateID: an id that is not the second key is still read
// (the fast path must not answer with an empty id).
func TestDecodeHeaderLateID(t *testing.T) {
	for _, line := range []string{
		`{"type":"conversations","data":[],"id":"1"}`,
		`{"type":"read_events","conversation":"17127583920","id":"1"}`,
		`{"id":"1","type":"read_events","conversation":"17127583920"}`,
	} {
		h, err := DecodeHeader([]byte(line))
		if err != nil || h.ID != "1" {
			t.Errorf("DecodeHeader(%s) = %+v, %v; want id 1", line, h, err)
		}
	}
	// A value that merely contains the text "id" keeps the fast path honest.
	h, err := DecodeHeader([]byte(`{"type":"print","text":"say \"id\""}`))
	if err != nil || h.ID != "" || h.Type != "print" {
		t.Errorf("print = %+v, %v", h, err)
	}
}
