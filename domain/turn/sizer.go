package turn

import (
	"strings"
	"unicode/utf8"

	"github.com/jpcli/jp/domain/conversation"
)

// Sizer estimates, as a conversation's events stream past, the tokens of
// the messages its next request carries with its compaction overlays
// applied, in memory that grows with its turns, not with its text: for
// jp conversation show, which never holds a conversation whole. It counts
// as llm.EstimateTokens does (about four characters a token); the
// overlays' effect is applied per turn (a summary replaces its turns,
// reasoning strip drops reasoning, tool strip leaves "{}" and a status
// line, omit drops the calls), the latest overlay of each kind winning as
// in the projection, the turn in progress and the turns that started after
// an overlay never compacted by it.
type Sizer struct {
	turns    []turnSize
	overlays []conversation.Compaction
	before   []int // per overlay, the turns started before it: it reaches no later one
	has      bool  // the current turn has an event
	open     bool  // the last turn has no turn_end yet
}

// turnSize are a turn's characters by what compaction can drop.
type turnSize struct {
	base, reasoning, args, results, calls int
	frames                                int // the tool calls' messages, names and IDs
}

// Sizer constants, in characters.
const (
	sizerMessage    = 16   // a message's framing
	sizerImage      = 6000 // an image: 1,500 tokens
	sizerStatusLine = 40   // "[compacted] <tool>: success"
)

// Add takes the next event.
func (s *Sizer) Add(e conversation.Event) {
	switch e.Type {
	case conversation.EventTypeForeign:
		switch {
		case e.Compaction != nil:
			s.overlays = append(s.overlays, *e.Compaction)
			s.before = append(s.before, len(s.turns))
		case e.IsCompactionReset():
			s.overlays, s.before = nil, nil
		}
		return
	case conversation.EventTypeTurnEnd:
		s.open = false
		return
	case conversation.EventTypeTurnStart:
		if s.has {
			s.turns = append(s.turns, turnSize{})
		}
		s.open = true
	}
	if len(s.turns) == 0 {
		s.turns = append(s.turns, turnSize{})
	}
	s.has = true
	t := &s.turns[len(s.turns)-1]
	switch e.Type {
	case conversation.EventTypeChatRequest:
		t.base += sizerMessage + utf8.RuneCountInString(e.Content)
		for _, a := range e.Attachments {
			if strings.HasPrefix(a.MediaType, "image/") {
				t.base += sizerImage
				continue
			}
			t.base += 32 + utf8.RuneCountInString(a.Source) + utf8.RuneCountInString(a.Content)
		}
	case conversation.EventTypeChatResponse:
		if e.Message != "" {
			t.base += sizerMessage // an answer is a message of its own
		}
		t.base += utf8.RuneCountInString(e.Message)
		t.reasoning += utf8.RuneCountInString(e.Reasoning)
	case conversation.EventTypeToolCallRequest:
		t.frames += sizerMessage + len(e.CallID) + utf8.RuneCountInString(e.Name)
		t.args += len(e.Arguments)
		t.calls++
	case conversation.EventTypeToolCallResponse:
		t.results += sizerMessage + len(e.CallID) + utf8.RuneCountInString(e.Content)
	}
}

// Tokens is the estimate of the messages' tokens so far.
func (s *Sizer) Tokens() int {
	n := len(s.turns)
	pending := -1
	if s.open {
		pending = n - 1
	}
	summary := make([]int, n)
	strip := make([]bool, n)
	tools := make([]*conversation.ToolCallPolicy, n)
	for i := range summary {
		summary[i] = -1
	}
	for oi, c := range s.overlays {
		for k := max(c.FromTurn, 0); k <= c.ToTurn && k < n && k < s.before[oi]; k++ {
			if k == pending {
				continue
			}
			if c.Summary != nil {
				summary[k] = oi
			}
			if c.StripReasoning {
				strip[k] = true
			}
			if c.Tools != nil {
				tools[k] = c.Tools
			}
		}
	}
	chars := 0
	counted := map[int]bool{}
	for k, t := range s.turns {
		if oi := summary[k]; oi >= 0 {
			if !counted[oi] {
				counted[oi] = true
				chars += 2*sizerMessage + len(SummaryRequest) + utf8.RuneCountInString(*s.overlays[oi].Summary)
			}
			continue
		}
		c := t.base
		if !strip[k] {
			c += t.reasoning
		}
		switch p := tools[k]; {
		case p == nil:
			c += t.frames + t.args + t.results
		case p.Omit: // the calls and their results are left out
		default:
			c += t.frames
			if p.Request {
				c += 2 * t.calls
			} else {
				c += t.args
			}
			if p.Response {
				c += (sizerMessage + sizerStatusLine) * t.calls
			} else {
				c += t.results
			}
		}
		chars += c
	}
	return (chars + 3) / 4
}
