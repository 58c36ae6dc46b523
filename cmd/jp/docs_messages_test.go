package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
)

// docMessage makes the value a protocol message of docs/plugins.md decodes
// into, by its type; fields tells apart the two messages one type names.
func docMessage(typ string, fields map[string]json.RawMessage) (any, bool) {
	if typ == plugin.TypeDescribe {
		if _, ok := fields["name"]; ok {
			return &plugin.Description{}, true // the plugin's answer
		}
		return &plugin.DescribeRequest{}, true // jp's request
	}
	mk, ok := docMessages[typ]
	if !ok {
		return nil, false
	}
	return mk(), true
}

// docMessages make the message of each type but describe (docMessage).
var docMessages = map[string]func() any{
	plugin.TypeReady:              func() any { return &plugin.Ready{} },
	plugin.TypeExit:               func() any { return &plugin.Exit{} },
	plugin.TypePrint:              func() any { return &plugin.Print{} },
	plugin.TypeLog:                func() any { return &plugin.Log{} },
	plugin.TypeListConversations:  func() any { return &plugin.ListConversations{} },
	plugin.TypeReadEvents:         func() any { return &plugin.ReadEvents{} },
	plugin.TypeReadConfig:         func() any { return &plugin.ReadConfig{} },
	plugin.TypeReadDraft:          func() any { return &plugin.ReadDraft{} },
	plugin.TypeWriteDraft:         func() any { return &plugin.WriteDraft{} },
	plugin.TypeCreateConversation: func() any { return &plugin.CreateConversation{} },
	plugin.TypeSetTitle:           func() any { return &plugin.SetTitle{} },
	plugin.TypeArchive:            func() any { return &plugin.Archive{} },
	plugin.TypeUnarchive:          func() any { return &plugin.Unarchive{} },
	plugin.TypeLock:               func() any { return &plugin.Lock{} },
	plugin.TypeUnlock:             func() any { return &plugin.Unlock{} },
	plugin.TypePushEvents:         func() any { return &plugin.PushEvents{} },
	plugin.TypeQuery:              func() any { return &plugin.Query{} },
	plugin.TypeInterrupt:          func() any { return &plugin.Interrupt{} },
	plugin.TypeRespond:            func() any { return &plugin.Respond{} },
	plugin.TypePrompt:             func() any { return &plugin.Prompt{} },
	plugin.TypeListWorkspaces:     func() any { return &plugin.ListWorkspaces{} },
	plugin.TypeInit:               func() any { return &plugin.Init{} },
	plugin.TypeShutdown:           func() any { return &plugin.Shutdown{} },
	plugin.TypeConversations:      func() any { return &plugin.Conversations{} },
	plugin.TypeEvents:             func() any { return &plugin.Events{} },
	plugin.TypeConfig:             func() any { return &plugin.Config{} },
	plugin.TypeDraft:              func() any { return &plugin.Draft{} },
	plugin.TypeDraftWritten:       func() any { return &plugin.DraftWritten{} },
	plugin.TypeCreated:            func() any { return &plugin.Created{} },
	plugin.TypeTitleSet:           func() any { return &plugin.TitleSet{} },
	plugin.TypeArchived:           func() any { return &plugin.Archived{} },
	plugin.TypeUnarchived:         func() any { return &plugin.Unarchived{} },
	plugin.TypeLocked:             func() any { return &plugin.Locked{} },
	plugin.TypeUnlocked:           func() any { return &plugin.Unlocked{} },
	plugin.TypeEventsPushed:       func() any { return &plugin.EventsPushed{} },
	plugin.TypeQueryStarted:       func() any { return &plugin.QueryStarted{} },
	plugin.TypeEvent:              func() any { return &plugin.Event{} },
	plugin.TypeQueryComplete:      func() any { return &plugin.QueryComplete{} },
	plugin.TypeInterrupted:        func() any { return &plugin.Interrupted{} },
	plugin.TypePromptResponse:     func() any { return &plugin.PromptResponse{} },
	plugin.TypeWorkspaces:         func() any { return &plugin.Workspaces{} },
	plugin.TypeError:              func() any { return &plugin.Error{} },
	plugin.TypeContextMeter:       func() any { return &plugin.ContextMeter{} },
	plugin.TypeCompact:            func() any { return &plugin.Compact{} },
	plugin.TypeMeter:              func() any { return &plugin.Meter{} },
	plugin.TypeCompacted:          func() any { return &plugin.Compacted{} },
	plugin.TypeReadHistory:        func() any { return &plugin.ReadHistory{} },
	plugin.TypeAddHistory:         func() any { return &plugin.AddHistory{} },
	plugin.TypeHistory:            func() any { return &plugin.History{} },
	plugin.TypeHistoryAdded:       func() any { return &plugin.HistoryAdded{} },
	plugin.TypeRewind:             func() any { return &plugin.Rewind{} },
	plugin.TypeRewound:            func() any { return &plugin.Rewound{} },
	plugin.TypeTrust:              func() any { return &plugin.TrustCheckout{} },
	plugin.TypeTrusted:            func() any { return &plugin.Trusted{} },
}

// TestPluginDocMessages reads every JSON block of docs/plugins.md as the
// protocol does: each message decodes into the message type its "type"
// names with no field the protocol does not have, and a message a plugin
// sends passes the checks jp applies to the plugin's line. The one block
// that is not a message, the last-root record, decodes into the record.
// Together with the scenarios behind the marked examples this keeps every
// message the document shows one jp reads or writes.
func TestPluginDocMessages(t *testing.T) {
	t.Parallel()
	blocks := docBlocks(t, filepath.Join("..", "..", "docs", "plugins.md"))
	n := 0
	for _, b := range blocks {
		if b.lang != "json" || b.marked {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(b.body))
		for {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Errorf("docs/plugins.md:%d: not JSON: %v\n%s", b.line, err, b.body)
				break
			}
			n++
			if err := checkDocMessage(raw); err != nil {
				t.Errorf("docs/plugins.md:%d: %s\n  %s", b.line, err, raw)
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d messages found in docs/plugins.md", n)
	}
}

func checkDocMessage(raw json.RawMessage) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return errors.New("not a JSON object")
	}
	var typ string
	if t, ok := fields["type"]; ok {
		if err := json.Unmarshal(t, &typ); err != nil {
			return errors.New("type is not a string")
		}
	}
	if typ == "" {
		if _, ok := fields["last_root"]; ok && len(fields) == 1 {
			var rec struct {
				LastRoot conversation.LastRoot `json:"last_root"`
			}
			return strictDecode(raw, &rec)
		}
		return errors.New("a message without a type")
	}
	msg, ok := docMessage(typ, fields)
	if !ok {
		return errors.New("no message of the protocol has type " + typ)
	}
	delete(fields, "type")
	body, _ := json.Marshal(fields)
	if err := strictDecode(body, msg); err != nil {
		return err
	}
	if r, ok := msg.(interface{ Validate() error }); ok {
		if err := r.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// strictDecode decodes b into v, refusing fields v does not have.
func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// TestCheckDocMessageRefuses: the check above can fail: a field the
// protocol does not have, a type it does not have, a request jp would
// refuse, and a message without a type are each reported.
func TestCheckDocMessageRefuses(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		`{"type":"read_events","id":"b","conversation":"17127583920","bogus":1}`,
		`{"type":"read_evnts","id":"b","conversation":"17127583920"}`,
		`{"type":"read_events","id":"b","conversation":""}`,
		`{"type":"query_complete","id":"q","outcome":7}`,
		`{"conversation":"17127583920"}`,
	} {
		if err := checkDocMessage(json.RawMessage(bad)); err == nil {
			t.Errorf("%s passed", bad)
		}
	}
}

// TestDocLimitMessages: the refusals docs/plugins.md shows for a title and
// a draft over their limits (testdata/doc_limit_messages.txt, which the
// doc's block must equal) are what jp says.
func TestDocLimitMessages(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile(filepath.Join("testdata", "doc_limit_messages.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, titleErr := conversation.CheckTitle(strings.Repeat("t", 10_000_000), false)
	draftErr := conversation.CheckSize("the draft", strings.Repeat("d", 14_994_637), 4<<20, "conversation.limits.draft_bytes")
	if titleErr == nil || draftErr == nil {
		t.Fatalf("not refused: %v, %v", titleErr, draftErr)
	}
	if got := titleErr.Error() + "\n" + draftErr.Error() + "\n"; got != string(want) {
		t.Errorf("messages:\n%s\nthe doc shows:\n%s", got, want)
	}
}
