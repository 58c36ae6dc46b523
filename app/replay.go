package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/ports"
)

// jp q --replay, as in the Rust jp: the conversation's last turn is
// dropped (its request, answer, tool calls and turn_end) and its request
// is sent again, with this run's flags and model. A message given with
// --replay goes before the old one (the Rust jp's order); without one the
// old message is composed in the editor when there is a terminal (-E
// sends it as it is).
//
// The trim is real: the events file is rewritten without the turn
// (ports.EventRewriter: under the conversation's lock, in one atomic
// replacement), so the Rust jp reading the file afterwards sees the same
// conversation; config_delta, compaction and unknown events recorded
// after the request stay. It is made only once the message is known to be
// non-empty and has been kept as the conversation's draft, right before
// the new turn is recorded: an empty compose, an error or an interrupt
// before then leaves the conversation as it was, and a crash between the
// trim and the new turn leaves the message in the draft (jp q -i ID
// offers it again).

// replaySeed finds the message --replay sends again and seeds the run
// with it. It records which request the trim will drop.
func (q *Query) replaySeed(ctx context.Context, rs *runState, id conversation.ID, in QueryInput) (QueryInput, error) {
	if id == "" {
		return in, &UsageError{Msg: "--replay: there is no conversation to replay: pick one with -i ID"}
	}
	var last conversation.Event
	found := false
	err := q.store.ScanEvents(ctx, rs.loc, id, func(e conversation.Event) error {
		if e.Type == conversation.EventTypeChatRequest {
			last, found = e, true
		}
		return nil
	})
	if err != nil {
		return in, err
	}
	if !found {
		return in, &UsageError{Msg: fmt.Sprintf("--replay: conversation %s has no message to send again (ask with jp q -i %s \"...\")", id, id)}
	}
	rs.replay = last.ID
	text := last.Content
	if in.HasMessage && in.Message != "" {
		text = in.Message + "\n\n" + text
	} else if !in.NoEdit && q.prompter.Interactive() {
		// The Rust jp opens the editor on the old message; without a
		// terminal it is sent as it is.
		in.Edit = true
	}
	in.Message, in.HasMessage = text, true
	if len(rs.schema) == 0 {
		rs.schema = last.Schema
	}
	// What the old message carried and this run does not attach again
	// (stdin, a file outside the checkout) goes with it.
	for _, a := range last.Attachments {
		if !hasAttachment(rs.attached, a) {
			rs.attached = append(rs.attached, a)
		}
	}
	return in, nil
}

func hasAttachment(list []conversation.Attachment, a conversation.Attachment) bool {
	for _, b := range list {
		if b.Source == a.Source && b.SHA256 == a.SHA256 {
			return true
		}
	}
	return false
}

// trimForReplay drops the turn --replay sends again from the store. A
// message that was not composed (and so is not the draft yet) is kept as
// the draft first, unless the conversation has a draft of its own, which
// is never overwritten; kept says whether it was, for the run to remove
// it once the turn is sent.
func (q *Query) trimForReplay(ctx context.Context, rs *runState, text string, composed bool) (kept bool, err error) {
	rw, ok := q.store.(ports.EventRewriter)
	if !ok {
		return false, fmt.Errorf("--replay: this conversation store cannot drop a turn")
	}
	if !composed {
		d, err := q.drafts.ReadDraft(ctx, rs.loc, rs.id)
		switch {
		case errors.Is(err, ports.ErrNotFound) || err == nil && strings.TrimSpace(draft.Parse(d.Text).Query()) == "":
			if err := q.keepDraft(ctx, rs.loc, rs.id, text); err != nil {
				return false, err
			}
			kept = true
		case err != nil:
			return false, err
		}
	}
	err = rw.RewriteEvents(ctx, rs.loc, rs.id, func(evs []conversation.Event) ([]conversation.Event, error) {
		kept, req, ok := conversation.TrimLastRequest(evs)
		if !ok || req.ID != rs.replay {
			return nil, fmt.Errorf("--replay: conversation %s changed while the message was composed; nothing was dropped (run jp q --replay again)", rs.id)
		}
		return kept, nil
	})
	if err != nil {
		return kept, err
	}
	rs.history = nil // read again, without the dropped turn
	return kept, nil
}
