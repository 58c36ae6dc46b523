package conversation

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvariant is wrapped by every error Stream.Check returns.
var ErrInvariant = errors.New("event stream invariant violated")

// Stream tracks the state of an event stream so that each appended event
// can be checked against the invariants of docs/storage.md:
//
//   - a chat_request is preceded by a turn_start of the same turn;
//   - every tool_call_response matches an earlier tool_call_request;
//   - every tool call in a turn gets exactly one response, so a turn cannot
//     end (and a new one cannot start) while a call is unanswered.
//
// A turn that never ended (the process was killed) is allowed: the next
// turn_start closes it. Calls still open at that point are reported by
// Unanswered so the app can see a visibly unfinished turn.
type Stream struct {
	inTurn   bool
	open     map[string]bool // call IDs requested and not yet answered
	answered map[string]bool // call IDs answered in this turn
	ids      map[string]struct{}
	count    int
}

// NewStream returns the state after replaying evs, or the first violation.
func NewStream(evs []Event) (*Stream, error) {
	s := EmptyStream(len(evs))
	for i, e := range evs {
		if err := s.Apply(e); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
	}
	return s, nil
}

// EmptyStream is the state of an empty stream that is about to be given
// about sizeHint events by Apply. The ids map is sized once: growing it
// to a long conversation's 100,000 IDs rehashes it a dozen times.
func EmptyStream(sizeHint int) *Stream {
	return &Stream{open: map[string]bool{}, answered: map[string]bool{}, ids: make(map[string]struct{}, sizeHint+sizeHint/8+16)}
}

// Len is the number of events applied.
func (s *Stream) Len() int { return s.count }

// InTurn reports whether the last turn is still open (no turn_end yet).
func (s *Stream) InTurn() bool { return s.inTurn }

// Unanswered returns the call IDs of the open turn that have no response.
func (s *Stream) Unanswered() []string {
	out := make([]string, 0, len(s.open))
	for id := range s.open {
		out = append(out, id)
	}
	return out
}

// Check reports whether e may be appended, without changing the state.
// Events of types this jp does not know are not checked beyond their ID.
func (s *Stream) Check(e Event) error {
	if e.ID == "" {
		return errNoID(e)
	}
	if _, dup := s.ids[e.ID]; dup {
		return errDupID(e)
	}
	return s.checkRest(e)
}

func errNoID(e Event) error { return fmt.Errorf("%w: %s event without an id", ErrInvariant, e.Type) }

func errDupID(e Event) error { return fmt.Errorf("%w: duplicate event id %q", ErrInvariant, e.ID) }

// checkRest is Check after the ID.
func (s *Stream) checkRest(e Event) error {
	if e.Timestamp.IsZero() {
		return fmt.Errorf("%w: %s event %q without a timestamp", ErrInvariant, e.Type, e.ID)
	}
	switch e.Type {
	case EventTypeTurnStart, EventTypeForeign:
		return nil
	case EventTypeChatRequest, EventTypeChatResponse, EventTypeInquiryRequest, EventTypeInquiryResponse:
		if !s.inTurn {
			return fmt.Errorf("%w: %s outside a turn (no turn_start before it)", ErrInvariant, e.Type)
		}
		if e.Type == EventTypeChatResponse && e.Message != "" && e.Reasoning != "" {
			return fmt.Errorf("%w: chat_response carries both message and reasoning", ErrInvariant)
		}
		return nil
	case EventTypeToolCallRequest:
		if !s.inTurn {
			return fmt.Errorf("%w: tool_call_request outside a turn", ErrInvariant)
		}
		if e.CallID == "" || e.Name == "" {
			return fmt.Errorf("%w: tool_call_request needs call_id and name", ErrInvariant)
		}
		if s.open[e.CallID] || s.answered[e.CallID] {
			return fmt.Errorf("%w: tool call %q requested twice", ErrInvariant, e.CallID)
		}
		return nil
	case EventTypeToolCallResponse:
		if !s.open[e.CallID] {
			if s.answered[e.CallID] {
				return fmt.Errorf("%w: tool call %q answered twice", ErrInvariant, e.CallID)
			}
			return fmt.Errorf("%w: tool_call_response for unknown call %q", ErrInvariant, e.CallID)
		}
		return nil
	case EventTypeTurnEnd:
		if !s.inTurn {
			return fmt.Errorf("%w: turn_end outside a turn", ErrInvariant)
		}
		if !e.Outcome.Valid() {
			return fmt.Errorf("%w: turn_end with outcome %q", ErrInvariant, e.Outcome)
		}
		if len(s.open) > 0 {
			return fmt.Errorf("%w: turn_end while %d tool call(s) are unanswered", ErrInvariant, len(s.open))
		}
		return nil
	}
	return fmt.Errorf("%w: unknown event type", ErrInvariant)
}

// Apply checks e and, if it is valid, advances the state. A Legacy event
// (stored by the Rust jp, without an event ID) is replayed without the
// checks: its history is taken as it is, and only what jp appends is held
// to the invariants.
func (s *Stream) Apply(e Event) error {
	if e.Legacy && e.ID != "" {
		if _, known := s.ids[e.ID]; !known {
			s.addID(e.ID)
			s.advance(e)
			return nil
		}
	}
	if e.ID == "" {
		return errNoID(e)
	}
	if err := s.checkRest(e); err != nil {
		if _, dup := s.ids[e.ID]; dup {
			return errDupID(e) // reported first, as Check does
		}
		return err
	}
	// One hash of the ID, not a lookup and then an insert: replaying a
	// long conversation is 100,000 of them, each a cache miss.
	if !s.addID(e.ID) {
		return errDupID(e)
	}
	s.advance(e)
	return nil
}

// addID records an event ID, false (and nothing changed) when it was
// there already. The ID is copied: an event's strings may share a chunk
// of a long events.json, which the state would otherwise keep
// (EachEventRead).
func (s *Stream) addID(id string) bool {
	n := len(s.ids)
	s.ids[strings.Clone(id)] = struct{}{}
	return len(s.ids) > n
}

// advance records e in the state, after its ID.
func (s *Stream) advance(e Event) {
	s.count++
	switch e.Type {
	case EventTypeTurnStart:
		s.inTurn = true
		clear(s.open)
		clear(s.answered)
	case EventTypeToolCallRequest:
		s.open[strings.Clone(e.CallID)] = true
	case EventTypeToolCallResponse:
		delete(s.open, e.CallID)
		s.answered[strings.Clone(e.CallID)] = true
	case EventTypeTurnEnd:
		s.inTurn = false
	}
}

// Validate checks a whole stream.
func Validate(evs []Event) error {
	_, err := NewStream(evs)
	return err
}
