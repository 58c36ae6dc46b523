package app

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"
	"unsafe"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
)

// scribbleStore gives its events through ScanEventsTransient only (the
// ports' mocks), their strings and bytes in one buffer that it overwrites
// once fn returns, as a store reusing its read buffer does.
type scribbleStore struct {
	*mocks.ConversationStoreMock
	*mocks.TransientEventScannerMock
}

func newScribbleStore(evs []conversation.Event) *scribbleStore {
	return &scribbleStore{
		ConversationStoreMock: &mocks.ConversationStoreMock{
			GetFunc: func(context.Context, workspace.Location, conversation.ID) (conversation.Summary, error) {
				return conversation.Summary{}, nil
			},
			ScanEventsFunc: func(context.Context, workspace.Location, conversation.ID, func(conversation.Event) error) error {
				panic("the turn's history read through ScanEvents, not ScanEventsTransient")
			},
		},
		TransientEventScannerMock: &mocks.TransientEventScannerMock{
			ScanEventsTransientFunc: func(_ context.Context, _ workspace.Location, _ conversation.ID, fn func(conversation.Event) error) error {
				return scribble(evs, fn)
			},
		},
	}
}

// scribble gives fn each of evs with its strings in one buffer, which it
// overwrites once fn returns.
func scribble(evs []conversation.Event, fn func(conversation.Event) error) error {
	buf := make([]byte, 0, 4096)
	in := func(str string) string {
		if str == "" {
			return ""
		}
		buf = append(buf, str...)
		return unsafe.String(&buf[len(buf)-len(str)], len(str))
	}
	for _, e := range evs {
		buf = buf[:0]
		e.ID, e.Content, e.Kind = in(e.ID), in(e.Content), in(e.Kind)
		if e.Delta != nil {
			e.Delta = []byte(in(string(e.Delta)))
		}
		if e.Raw != nil {
			e.Raw = []byte(in(string(e.Raw)))
		}
		if err := fn(e); err != nil {
			return err
		}
		for i := range buf {
			buf[i] = 'X'
		}
	}
	return nil
}

// A turn's history read keeps nothing of the store's transient events:
// its transcript and its configuration layers are intact after the
// store has reused their memory.
func TestHistoryReadCopiesTransientEvents(t *testing.T) {
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	delta, err := conversation.NewConfigDelta("e0", ts, json.RawMessage(`{"assistant":{"model":{"id":"demo/echo"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	delta.Raw = []byte(`{"type":"config_delta","timestamp":"2026-01-01T00:00:00Z","delta":{"assistant":{"model":{"id":"demo/echo"}}},"event_id":"e0"}`)
	store := newScribbleStore([]conversation.Event{
		delta,
		{Type: conversation.EventTypeTurnStart, ID: "e1", Timestamp: ts},
		{Type: conversation.EventTypeChatRequest, ID: "e2", Timestamp: ts, Content: "hello there"},
		{Type: conversation.EventTypeTurnEnd, ID: "e3", Timestamp: ts, Outcome: conversation.OutcomeCompleted},
	})
	q := &Query{store: store}
	layers, tr, err := q.readConversation(t.Context(), workspace.Location{}, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 || !bytes.Equal(layers[0].JSON, delta.Delta) {
		t.Fatalf("layers = %+v, want the config_delta's %s", layers, delta.Delta)
	}
	if first, _ := tr.FirstExchange(); first != "hello there" {
		t.Fatalf("first message = %q after the store reused its buffer", first)
	}
}
