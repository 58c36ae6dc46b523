package eventcodec

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

// compactionWire is the Rust jp's serialised form of a compaction (its
// fields in its order), without the type, timestamp and ID.
type compactionWire struct {
	FromTurn  int            `json:"from_turn"`
	ToTurn    int            `json:"to_turn"`
	Summary   *summaryWire   `json:"summary,omitempty"`
	Reasoning string         `json:"reasoning,omitempty"`
	ToolCalls *toolCallsWire `json:"tool_calls,omitempty"`
}

type summaryWire struct {
	Summary string `json:"summary"`
}

type toolCallsWire struct {
	Policy   string `json:"policy"`
	Request  *bool  `json:"request,omitempty"`
	Response *bool  `json:"response,omitempty"`
}

// parseCompaction reads the overlay of a stored compaction event.
func parseCompaction(raw []byte) (*conversation.Compaction, error) {
	var w struct {
		FromTurn  *int            `json:"from_turn"`
		ToTurn    *int            `json:"to_turn"`
		Summary   *summaryWire    `json:"summary"`
		Reasoning *string         `json:"reasoning"`
		ToolCalls json.RawMessage `json:"tool_calls"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, err
	}
	if w.FromTurn == nil || w.ToTurn == nil || *w.FromTurn < 0 || *w.ToTurn < 0 {
		return nil, fmt.Errorf("compaction without from_turn and to_turn")
	}
	c := &conversation.Compaction{FromTurn: *w.FromTurn, ToTurn: *w.ToTurn}
	if w.Summary != nil {
		s := w.Summary.Summary
		c.Summary = &s
	}
	if w.Reasoning != nil {
		if *w.Reasoning != "strip" {
			return nil, fmt.Errorf("compaction reasoning policy %q", *w.Reasoning)
		}
		c.StripReasoning = true
	}
	if len(w.ToolCalls) > 0 && string(w.ToolCalls) != "null" {
		var t struct {
			Policy   string `json:"policy"`
			Request  bool   `json:"request"`
			Response bool   `json:"response"`
		}
		if err := json.Unmarshal(w.ToolCalls, &t); err != nil {
			return nil, err
		}
		switch t.Policy {
		case "omit":
			c.Tools = &conversation.ToolCallPolicy{Omit: true}
		case "strip":
			c.Tools = &conversation.ToolCallPolicy{Request: t.Request, Response: t.Response}
		default:
			return nil, fmt.Errorf("compaction tool call policy %q", t.Policy)
		}
	}
	return c, nil
}

// wire is c in the Rust jp's serialised form.
func wireOf(c conversation.Compaction) compactionWire {
	w := compactionWire{FromTurn: c.FromTurn, ToTurn: c.ToTurn}
	if c.Summary != nil {
		w.Summary = &summaryWire{Summary: *c.Summary}
	}
	if c.StripReasoning {
		w.Reasoning = "strip"
	}
	if t := c.Tools; t != nil {
		if t.Omit {
			w.ToolCalls = &toolCallsWire{Policy: "omit"}
		} else {
			w.ToolCalls = &toolCallsWire{Policy: "strip", Request: ptr(t.Request), Response: ptr(t.Response)}
		}
	}
	return w
}

// RustTime is t as the Rust jp writes a compaction's timestamp:
// "YYYY-MM-DD HH:MM:SS.f", the fraction without trailing zeros (".0" for
// none).
func RustTime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02 15:04:05") + ".0"
	}
	return strings.TrimRight(t.Format("2006-01-02 15:04:05.000000000"), "0")
}

// compactionJSON encodes a compaction or reset event this process made,
// in format f: the Rust jp's fields in its order, with jp's event ID
// ("event_id" in the Rust form, which the Rust reader passes over).
func compactionJSON(e conversation.Event, f conversation.Format) ([]byte, error) {
	var fs []field
	if f == conversation.FormatRust {
		fs = []field{{"type", e.Kind}, {"timestamp", RustTime(e.Timestamp)}}
	} else {
		fs = []field{{"type", e.Kind}, {"id", e.ID}, {"timestamp", FormatTime(e.Timestamp, conversation.FormatJP)}}
	}
	if e.Kind == conversation.KindCompaction {
		if e.Compaction == nil {
			return nil, fmt.Errorf("encode event %q: compaction without its overlay", e.ID)
		}
		w := wireOf(*e.Compaction)
		fs = append(fs, field{"from_turn", w.FromTurn}, field{"to_turn", w.ToTurn})
		if w.Summary != nil {
			fs = append(fs, field{"summary", w.Summary})
		}
		if w.Reasoning != "" {
			fs = append(fs, field{"reasoning", w.Reasoning})
		}
		if w.ToolCalls != nil {
			fs = append(fs, field{"tool_calls", w.ToolCalls})
		}
	}
	if f == conversation.FormatRust {
		fs = append(fs, field{"event_id", e.ID})
	}
	return object(fs...)
}
