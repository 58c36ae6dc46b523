package conversation

import (
	"time"
)

// Wire names of the compaction events. KindCompaction is the Rust jp's
// overlay event, in its form; KindCompactionReset is jp's own: it undoes
// every overlay before it (jp conversation compact --reset), so that
// nothing is deleted. The Rust jp keeps a reset as an event it does not
// know and still applies the overlays before it.
const (
	KindCompaction      = "compaction"
	KindCompactionReset = "compaction_reset"
)

// Compaction is an overlay appended to a conversation: it changes how
// the turns FromTurn..ToTurn (0-based, inclusive, counted as the Rust jp
// counts turns) are sent to a model, never the events themselves. A nil
// or false policy has no opinion: the events pass through, or an earlier
// overlay's policy applies.
type Compaction struct {
	FromTurn int
	ToTurn   int
	// Summary, when set, replaces every event of the range sent to a model
	// by one user/assistant pair carrying it; it wins over the others.
	Summary *string
	// StripReasoning drops reasoning ("reasoning": "strip").
	StripReasoning bool
	// Tools is the tool call policy, nil when there is none.
	Tools *ToolCallPolicy
}

// ToolCallPolicy is a compaction's policy for tool call pairs: Omit
// removes them; otherwise Request empties the arguments to {} and
// Response replaces the result by a status line.
type ToolCallPolicy struct {
	Omit     bool
	Request  bool
	Response bool
}

// NewCompactionEvent is the event appending overlay c.
func NewCompactionEvent(id string, at time.Time, c Compaction) Event {
	return Event{Type: EventTypeForeign, Kind: KindCompaction, ID: id, Timestamp: at, Compaction: &c}
}

// NewCompactionResetEvent is the event that undoes every overlay before it.
func NewCompactionResetEvent(id string, at time.Time) Event {
	return Event{Type: EventTypeForeign, Kind: KindCompactionReset, ID: id, Timestamp: at}
}

// IsCompactionReset reports whether e undoes the overlays before it.
func (e Event) IsCompactionReset() bool {
	return e.Type == EventTypeForeign && e.Kind == KindCompactionReset
}
