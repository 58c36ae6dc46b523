package attach

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

func convEvents() []conversation.Event {
	return []conversation.Event{
		{Type: conversation.EventTypeTurnStart, ID: "e1"},
		{Type: conversation.EventTypeChatRequest, ID: "e2", Content: "first question"},
		{Type: conversation.EventTypeChatResponse, ID: "e3", Message: "first answer\n"},
		{Type: conversation.EventTypeTurnEnd, ID: "e4", Outcome: conversation.OutcomeCompleted},
		{Type: conversation.EventTypeTurnStart, ID: "e5"},
		{Type: conversation.EventTypeChatRequest, ID: "e6", Content: "read it"},
		{Type: conversation.EventTypeChatResponse, ID: "e7", Reasoning: "thinking"},
		{Type: conversation.EventTypeToolCallRequest, ID: "e8", CallID: "c1", Name: "fs_read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)},
		{Type: conversation.EventTypeToolCallResponse, ID: "e9", CallID: "c1", Content: "package a ```"},
		{Type: conversation.EventTypeChatResponse, ID: "e10", Message: "second answer"},
		{Type: conversation.EventTypeTurnEnd, ID: "e11", Outcome: conversation.OutcomeCompleted},
	}
}

func convReq(spec string, confine bool, notes *[]string) ports.AttachRequest {
	return ports.AttachRequest{Specs: []string{spec}, Confine: confine, Note: func(l string) { *notes = append(*notes, l) },
		Conversation: func(_ context.Context, id conversation.ID) ([]conversation.Event, error) {
			if id != "17013123456" {
				return nil, ports.ConversationNotFound(id)
			}
			return convEvents(), nil
		}}
}

func TestConversationAttachmentRendersAsTheRustJp(t *testing.T) {
	var notes []string
	for spec, want := range map[string]struct{ source, content string }{
		"jp://jp-c17013123456":              {"jp:jp-c17013123456 (a:-1)", "## Turn 2\n\n### Assistant\n\nsecond answer\n\n"},
		"jp-c17013123456?u,a:1":             {"jp:jp-c17013123456 (a,u:1)", "## Turn 1\n\n### User\n\nfirst question\n\n### Assistant\n\nfirst answer\n\n"},
		"jp://jp-c17013123456?select=*:2..": {"jp:jp-c17013123456 (*:2..)", "## Turn 2\n\n### User\n\nread it\n\n### Reasoning\n\nthinking\n\n### Tool: fs_read_file\n\n**Arguments**\n```json\n{\n  \"path\": \"a.go\"\n}\n```\n\n**Result**\n````\npackage a ```\n````\n\n### Assistant\n\nsecond answer\n\n"},
		"jp://jp-c17013123456?select=a:..":  {"jp:jp-c17013123456 (a:..)", "## Turn 1\n\n### Assistant\n\nfirst answer\n\n\n## Turn 2\n\n### Assistant\n\nsecond answer\n\n"},
		"jp://jp-c17013123456?select=a:5":   {"jp:jp-c17013123456 (a:5)", ""},
	} {
		atts, err := (&Attacher{}).Attach(context.Background(), convReq(spec, false, &notes))
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if atts[0].Source != want.source || atts[0].Content != want.content || !atts[0].Local {
			t.Errorf("%s:\n got %q %q\nwant %q %q", spec, atts[0].Source, atts[0].Content, want.source, want.content)
		}
	}
}

func TestConversationAttachmentRawAndErrors(t *testing.T) {
	var notes []string
	atts, err := (&Attacher{}).Attach(context.Background(), convReq("jp://jp-c17013123456?select=u:-1&raw", false, &notes))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Events []map[string]any `json:"events"`
	}
	if err := json.Unmarshal([]byte(atts[0].Content), &raw); err != nil || len(raw.Events) != 2 || raw.Events[0]["type"] != "turn_start" || raw.Events[1]["content"] != "read it" {
		t.Fatalf("raw: %s (%v)", atts[0].Content, err)
	}
	if atts[0].Source != "jp:jp-c17013123456 (json, u:-1)" {
		t.Fatalf("source %q", atts[0].Source)
	}
	for spec, want := range map[string]string{
		"jp://jp-c1":                      "conversation 1 is not in this workspace",
		"jp://jp-w1":                      "only conversations (jp-c<ID>) are supported",
		"jp://jp-c17013123456?select=x":   `unknown content flag "x"`,
		"jp://jp-c17013123456?select=a:0": "0 is not a turn",
		"jp://jp-c17013123456?raw=all":    "not supported by this jp",
		"jp://jp-c17013123456?foo=1":      `unknown query parameter "foo"`,
		"jp://../../etc":                  "give a conversation",
	} {
		_, err := (&Attacher{}).Attach(context.Background(), convReq(spec, false, &notes))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	// A configured attachment of a conversation since removed is left out
	// with a note, as the Rust jp does.
	atts, err = (&Attacher{}).Attach(context.Background(), convReq("jp://jp-c1", true, &notes))
	if err != nil || len(atts) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "left out jp://jp-c1") {
		t.Fatalf("configured missing: %v %v %v", atts, err, notes)
	}
}
