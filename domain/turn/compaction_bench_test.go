package turn

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

// benchConversation is a conversation of n events in agentic turns of
// seven (a question, reasoning, a tool call and its result, an answer),
// followed by overlays compaction events spread over its turns: strips,
// omits and summaries, some overlapping.
func benchConversation(n, overlays int) []conversation.Event {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	text := strings.Repeat("word ", 40)
	evs := make([]conversation.Event, 0, n+overlays)
	turns := 0
	for i := 0; len(evs)+7 <= n; i++ {
		id := func(k int) string { return fmt.Sprintf("e%d_%d", i, k) }
		call := fmt.Sprintf("call_%d", i)
		evs = append(evs,
			conversation.Event{Type: conversation.EventTypeTurnStart, ID: id(0), Timestamp: at},
			conversation.Event{Type: conversation.EventTypeChatRequest, ID: id(1), Timestamp: at, Content: "question " + text},
			conversation.Event{Type: conversation.EventTypeChatResponse, ID: id(2), Timestamp: at, Reasoning: "thinking " + text},
			conversation.Event{Type: conversation.EventTypeToolCallRequest, ID: id(3), Timestamp: at, CallID: call, Name: "fs_read_file", Arguments: json.RawMessage(`{"path":"a/b.go"}`)},
			conversation.Event{Type: conversation.EventTypeToolCallResponse, ID: id(4), Timestamp: at, CallID: call, Content: "result " + text},
			conversation.Event{Type: conversation.EventTypeChatResponse, ID: id(5), Timestamp: at, Message: "answer " + text},
			conversation.Event{Type: conversation.EventTypeTurnEnd, ID: id(6), Timestamp: at, Outcome: conversation.OutcomeCompleted},
		)
		turns++
	}
	for k := range overlays {
		from := k * turns / (overlays + 1)
		to := from + turns/overlays
		c := conversation.Compaction{FromTurn: from, ToTurn: to}
		switch k % 4 {
		case 0:
			c.StripReasoning, c.Tools = true, &conversation.ToolCallPolicy{Request: true, Response: true}
		case 1:
			c.Tools = &conversation.ToolCallPolicy{Omit: true}
		case 2:
			s := fmt.Sprintf("summary %d", k)
			c.Summary = &s
		case 3:
			c.StripReasoning = true
		}
		evs = append(evs, conversation.NewCompactionEvent(fmt.Sprintf("c%d", k), at.Add(time.Duration(k)*time.Second), c))
	}
	return evs
}

// BenchmarkProjectCompacted builds the request messages of a
// 100,000-event conversation as a run does: its stored events.json read
// in chunks into a transcript, then Messages ("read"). With 10
// compaction overlays it should cost under 1.2 times what it costs with
// none. The "transcript" ones leave the reading out: the projection's
// share of the building alone.
func BenchmarkProjectCompacted(b *testing.B) {
	for _, overlays := range []int{0, 10} {
		evs := benchConversation(100_000, overlays)
		stored, err := eventcodec.EncodeStoredEvents(evs, conversation.FormatJP)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("read/overlays=%d", overlays), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t := NewTranscript(len(evs))
				err := eventcodec.EachEventRead(bytes.NewReader(stored), func(e conversation.Event) error {
					t.AddCopy(e)
					return nil
				})
				if err != nil || len(t.Messages()) == 0 {
					b.Fatal("no messages", err)
				}
			}
		})
		b.Run(fmt.Sprintf("transcript/overlays=%d", overlays), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t := NewTranscript(len(evs))
				for _, e := range evs {
					t.Add(e)
				}
				if len(t.Messages()) == 0 {
					b.Fatal("no messages")
				}
			}
		})
	}
}
