package fsstore

import "github.com/jpcli/jp/domain/conversation"

// turnWrites is what one Append writes besides its log lines, decided by
// where its events sit among the turns (docs/storage.md, "Crash safety").
type turnWrites struct {
	// endsTurn: the append's last event is a turn_end. Its events go into
	// a fold of the log into events.json (and a projection sync) instead
	// of an fsync of the log line.
	endsTurn bool
	// metadata: metadata.json's events_count and last_activated_at are
	// rewritten. A turn's start rewrites them, unless the same append also
	// carries the previous turn's end (a queued reply dispatched at once):
	// that append is the hot path between two turns, and the fold at the
	// end of the turn it starts rewrites metadata.json anyway.
	metadata bool
}

// planTurnWrites reads evs (not empty) for the writes their append owes.
func planTurnWrites(evs []conversation.Event) turnWrites {
	starts, ends := false, false
	for _, e := range evs {
		switch e.Type {
		case conversation.EventTypeTurnStart:
			starts = true
		case conversation.EventTypeTurnEnd:
			ends = true
		}
	}
	w := turnWrites{endsTurn: evs[len(evs)-1].Type == conversation.EventTypeTurnEnd}
	w.metadata = w.endsTurn || (starts && !ends)
	return w
}
