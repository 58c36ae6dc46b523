package conversation

// TrimLastRequest is what jp q --replay removes, as the Rust jp's
// ConversationStream::trim_chat_request does: the conversation's last
// chat_request and every turn event after it (its answer, tool calls and
// results, questions, turn_end), and the turn_start left empty before it.
// Events that are not part of a turn (config_delta, compaction and any
// kind this jp does not know) are kept where they were, in order, so
// what another version wrote survives. It returns the events kept, the
// request removed, and ok false (evs unchanged) when there is no
// chat_request.
func TrimLastRequest(evs []Event) (kept []Event, req Event, ok bool) {
	last := -1
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == EventTypeChatRequest {
			last = i
			break
		}
	}
	if last < 0 {
		return evs, Event{}, false
	}
	kept = make([]Event, 0, len(evs))
	// The turn_start that opened the request's turn, when only events
	// outside turns lie between them.
	start := -1
	for i := last - 1; i >= 0; i-- {
		if evs[i].Type == EventTypeTurnStart {
			start = i
			break
		}
		if evs[i].Type != EventTypeForeign {
			break
		}
	}
	for i, e := range evs {
		switch {
		case i == start || i == last:
		case i > last && e.Type != EventTypeForeign:
		default:
			kept = append(kept, e)
		}
	}
	return kept, evs[last], true
}
