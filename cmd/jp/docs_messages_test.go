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
	switch typ {
	case plugin.TypeDescribe:
		if _, ok := fields["name"]; ok {
			return &plugin.Description{}, true // the plugin's answer
		}
		return &plugin.DescribeRequest{}, true // jp's request
	case plugin.TypeReady:
		return &plugin.Ready{}, true
	case plugin.TypeExit:
		return &plugin.Exit{}, true
	case plugin.TypePrint:
		return &plugin.Print{}, true
	case plugin.TypeLog:
		return &plugin.Log{}, true
	case plugin.TypeListConversations:
		return &plugin.ListConversations{}, true
	case plugin.TypeReadEvents:
		return &plugin.ReadEvents{}, true
	case plugin.TypeReadConfig:
		return &plugin.ReadConfig{}, true
	case plugin.TypeReadDraft:
		return &plugin.ReadDraft{}, true
	case plugin.TypeWriteDraft:
		return &plugin.WriteDraft{}, true
	case plugin.TypeCreateConversation:
		return &plugin.CreateConversation{}, true
	case plugin.TypeSetTitle:
		return &plugin.SetTitle{}, true
	case plugin.TypeArchive:
		return &plugin.Archive{}, true
	case plugin.TypeUnarchive:
		return &plugin.Unarchive{}, true
	case plugin.TypeLock:
		return &plugin.Lock{}, true
	case plugin.TypeUnlock:
		return &plugin.Unlock{}, true
	case plugin.TypePushEvents:
		return &plugin.PushEvents{}, true
	case plugin.TypeQuery:
		return &plugin.Query{}, true
	case plugin.TypeInterrupt:
		return &plugin.Interrupt{}, true
	case plugin.TypeRespond:
		return &plugin.Respond{}, true
	case plugin.TypePrompt:
		return &plugin.Prompt{}, true
	case plugin.TypeListWorkspaces:
		return &plugin.ListWorkspaces{}, true
	case plugin.TypeInit:
		return &plugin.Init{}, true
	case plugin.TypeShutdown:
		return &plugin.Shutdown{}, true
	case plugin.TypeConversations:
		return &plugin.Conversations{}, true
	case plugin.TypeEvents:
		return &plugin.Events{}, true
	case plugin.TypeConfig:
		return &plugin.Config{}, true
	case plugin.TypeDraft:
		return &plugin.Draft{}, true
	case plugin.TypeDraftWritten:
		return &plugin.DraftWritten{}, true
	case plugin.TypeCreated:
		return &plugin.Created{}, true
	case plugin.TypeTitleSet:
		return &plugin.TitleSet{}, true
	case plugin.TypeArchived:
		return &plugin.Archived{}, true
	case plugin.TypeUnarchived:
		return &plugin.Unarchived{}, true
	case plugin.TypeLocked:
		return &plugin.Locked{}, true
	case plugin.TypeUnlocked:
		return &plugin.Unlocked{}, true
	case plugin.TypeEventsPushed:
		return &plugin.EventsPushed{}, true
	case plugin.TypeQueryStarted:
		return &plugin.QueryStarted{}, true
	case plugin.TypeEvent:
		return &plugin.Event{}, true
	case plugin.TypeQueryComplete:
		return &plugin.QueryComplete{}, true
	case plugin.TypeInterrupted:
		return &plugin.Interrupted{}, true
	case plugin.TypePromptResponse:
		return &plugin.PromptResponse{}, true
	case plugin.TypeWorkspaces:
		return &plugin.Workspaces{}, true
	case plugin.TypeError:
		return &plugin.Error{}, true
	}
	return frontendDocMessage(typ)
}

// frontendDocMessage is docMessage for the requests of a frontend
// (context_meter, compact, read_history, add_history) and their answers.
func frontendDocMessage(typ string) (any, bool) {
	switch typ {
	case plugin.TypeContextMeter:
		return &plugin.ContextMeter{}, true
	case plugin.TypeCompact:
		return &plugin.Compact{}, true
	case plugin.TypeMeter:
		return &plugin.Meter{}, true
	case plugin.TypeCompacted:
		return &plugin.Compacted{}, true
	case plugin.TypeReadHistory:
		return &plugin.ReadHistory{}, true
	case plugin.TypeAddHistory:
		return &plugin.AddHistory{}, true
	case plugin.TypeHistory:
		return &plugin.History{}, true
	case plugin.TypeHistoryAdded:
		return &plugin.HistoryAdded{}, true
	}
	return nil, false
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
