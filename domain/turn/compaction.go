package turn

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/jpcli/jp/domain/compact"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

// SummaryRequest is the user message that stands before a summary in the
// projected conversation (the Rust jp's).
const SummaryRequest = "[Summary of previous conversation]"

// overlay is a compaction the transcript read, with its time and the
// number of turns the conversation had when it was appended: it never
// reaches a turn that started after it (the turn being asked is never
// compacted).
type overlay struct {
	c     conversation.Compaction
	at    time.Time
	turns int
}

// turnPolicy is what the overlays say of one turn: the winner of each
// policy, by the latest timestamp (ties: the later in the stream).
type turnPolicy struct {
	summary   int // index of the overlay whose summary wins, -1 for none
	reasoning bool
	tools     *conversation.ToolCallPolicy
	sumAt     time.Time
	reasAt    time.Time
	toolsAt   time.Time
	hasReas   bool
}

// emptyArgs are a stripped tool call's arguments.
var emptyArgs = json.RawMessage("{}")

// toolName is the name of the call id among the assistant messages of
// msgs (its turn's, before its result), "unknown" when none has it.
func toolName(msgs []llm.Message, id string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, c := range msgs[i].ToolCalls {
			if c.ID == id {
				return c.Name
			}
		}
	}
	return "unknown"
}

// Overlays reports how many compaction overlays are in effect (those
// after the last reset).
func (t *Transcript) Overlays() int { return len(t.overlays) }

// Turns counts the turns as the Rust jp numbers them for compaction
// ranges: a turn_start opens a turn when the current one has an event;
// events before the first turn_start are turn 0.
func (t *Transcript) Turns() int {
	if !t.turnHas {
		return 0
	}
	return t.turn + 1
}

// addTurn is Add's turn and overlay bookkeeping, after addMessage.
func (t *Transcript) addTurn(e conversation.Event) {
	switch e.Type {
	case conversation.EventTypeForeign:
		switch {
		case e.Compaction != nil:
			t.overlays = append(t.overlays, overlay{c: *e.Compaction, at: e.Timestamp, turns: t.Turns()})
		case e.IsCompactionReset():
			t.overlays = nil
		}
		return
	case conversation.EventTypeTurnEnd:
		return // unknown to the Rust jp: no event of a turn
	case conversation.EventTypeTurnStart:
		if t.turnHas {
			t.turn++
			t.turnStarts = append(t.turnStarts, len(t.msgs))
			t.turnTimes = append(t.turnTimes, e.Timestamp)
		}
	}
	if !t.turnHas {
		t.turnTimes = append(t.turnTimes, e.Timestamp)
	}
	t.turnHas = true
}

// CompactionView is what the compaction rules need of the conversation:
// each turn's start and the overlays in effect.
func (t *Transcript) CompactionView() compact.View {
	v := compact.View{Starts: t.turnTimes, Overlays: make([]conversation.Compaction, len(t.overlays))}
	for i, o := range t.overlays {
		v.Overlays[i] = o.c
	}
	return v
}

// policies resolves each turn's policies; ok is false when no turn has
// one.
func (t *Transcript) policies(turns int) ([]turnPolicy, bool) {
	ps := make([]turnPolicy, turns)
	for i := range ps {
		ps[i].summary = -1
	}
	any := false
	for oi, o := range t.overlays {
		to := min(o.c.ToTurn, turns-1, o.turns-1)
		for k := o.c.FromTurn; k <= to; k++ {
			p := &ps[k]
			if o.c.Summary != nil && (p.summary < 0 || !o.at.Before(p.sumAt)) {
				p.summary, p.sumAt, any = oi, o.at, true
			}
			if o.c.StripReasoning && (!p.hasReas || !o.at.Before(p.reasAt)) {
				p.reasoning, p.hasReas, p.reasAt, any = true, true, o.at, true
			}
			if o.c.Tools != nil && (p.tools == nil || !o.at.Before(p.toolsAt)) {
				p.tools, p.toolsAt, any = o.c.Tools, o.at, true
			}
		}
	}
	return ps, any
}

// project applies the overlays to msgs (Messages' result): a summary
// replaces all the messages of its turns by one user/assistant pair, once
// per run of turns it wins; reasoning strip drops reasoning; tool strip
// empties arguments to {} and replaces results by "[compacted] NAME:
// success|error", keeping names, call IDs and error status; omit drops
// tool calls and their results. An assistant message left next to
// another by what was dropped joins it, as the events would have.
func (t *Transcript) project(msgs []llm.Message) []llm.Message {
	turns := t.Turns()
	if len(t.overlays) == 0 || turns == 0 {
		return msgs
	}
	ps, ok := t.policies(turns)
	if !ok {
		return msgs
	}
	pr := &projection{out: make([]llm.Message, 0, len(msgs))}
	for k := range turns {
		lo := t.turnStarts[k]
		hi := len(msgs)
		if k+1 < len(t.turnStarts) {
			hi = t.turnStarts[k+1]
		}
		lo, hi = min(lo, len(msgs)), min(hi, len(msgs))
		p := &ps[k]
		switch {
		case p.summary >= 0:
			if k == 0 || ps[k-1].summary != p.summary {
				pr.add(&llm.Message{Role: llm.RoleUser, Text: SummaryRequest})
				pr.add(&llm.Message{Role: llm.RoleAssistant, Text: *t.overlays[p.summary].c.Summary})
			}
		case !p.reasoning && p.tools == nil:
			if lo < hi && pr.dropped {
				pr.add(&msgs[lo])
				lo++
			}
			pr.out = append(pr.out, msgs[lo:hi]...)
		default:
			pr.turn(msgs, lo, hi, p)
		}
	}
	return pr.out
}

// projection is the messages project has produced so far.
type projection struct {
	out     []llm.Message
	slab    []llm.ToolCall // stripped calls share one array, not one each
	dropped bool           // a message was dropped since the last one added
}

// add appends m; an assistant message following another across dropped
// messages joins it, as the events would have.
func (pr *projection) add(m *llm.Message) {
	if n := len(pr.out); pr.dropped && n > 0 && m.Role == llm.RoleAssistant && pr.out[n-1].Role == llm.RoleAssistant {
		a := &pr.out[n-1]
		a.Text += m.Text
		a.Reasoning += m.Reasoning
		a.Thinking = slices.Concat(a.Thinking, m.Thinking)
		a.ToolCalls = slices.Concat(a.ToolCalls, m.ToolCalls)
		return
	}
	pr.out = append(pr.out, *m)
	pr.dropped = false
}

// turn projects the messages msgs[lo:hi] of one turn under the reasoning
// and tool policies of p.
func (pr *projection) turn(msgs []llm.Message, lo, hi int, p *turnPolicy) {
	for i := lo; i < hi; i++ {
		m := msgs[i]
		switch m.Role {
		case llm.RoleAssistant:
			if p.reasoning {
				m.Reasoning, m.Thinking = "", nil
			}
			if tp := p.tools; tp != nil && len(m.ToolCalls) > 0 {
				switch {
				case tp.Omit:
					m.ToolCalls = nil
				case tp.Request:
					m.ToolCalls = pr.stripped(m.ToolCalls)
				}
			}
			if m.Text == "" && m.Reasoning == "" && len(m.ToolCalls) == 0 {
				pr.dropped = true
				continue
			}
		case llm.RoleTool:
			if tp := p.tools; tp != nil {
				if tp.Omit {
					pr.dropped = true
					continue
				}
				if tp.Response {
					status := "success"
					if m.IsError {
						status = "error"
					}
					m.Text = "[compacted] " + toolName(msgs[lo:i], m.ToolCallID) + ": " + status
				}
			}
		}
		pr.add(&m)
	}
}

// stripped are calls with their arguments emptied to {}, in the shared
// slab.
func (pr *projection) stripped(calls []llm.ToolCall) []llm.ToolCall {
	if cap(pr.slab)-len(pr.slab) < len(calls) {
		pr.slab = make([]llm.ToolCall, 0, max(256, len(calls)))
	}
	start := len(pr.slab)
	for _, c := range calls {
		pr.slab = append(pr.slab, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: emptyArgs})
	}
	return pr.slab[start:len(pr.slab):len(pr.slab)]
}

// TurnMessages are the messages of the turns from..to (0-based,
// inclusive) without the overlays: what a summarizer reads.
func (t *Transcript) TurnMessages(from, to int) []llm.Message {
	msgs := t.RawMessages()
	if from < 0 || from >= len(t.turnStarts) || to < from {
		return nil
	}
	lo, hi := t.turnStarts[from], len(msgs)
	if to+1 < len(t.turnStarts) {
		hi = t.turnStarts[to+1]
	}
	return msgs[min(lo, len(msgs)):min(hi, len(msgs))]
}

// MessagesWith is Messages as it would be with the overlays extra
// appended (jp conversation compact --dry-run); the transcript is left
// as it was.
func (t *Transcript) MessagesWith(extra []conversation.Compaction) []llm.Message {
	saved := t.overlays
	defer func() { t.overlays = saved }()
	t.overlays = slices.Clip(t.overlays)
	var at time.Time // the latest: a tie goes to the later overlay
	for _, o := range saved {
		if o.at.After(at) {
			at = o.at
		}
	}
	for _, c := range extra {
		t.overlays = append(t.overlays, overlay{c: c, at: at, turns: t.Turns()})
	}
	return t.Messages()
}
