package app

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// typeAhead is the app side of type-ahead (docs/interrupts.md): lines the
// user submits while a turn runs wait here until the run's goroutine
// takes them into the queued-reply slot at a turn boundary, where the
// countdown applies as it does to a reply queued from the menu.
type typeAhead struct {
	h ports.TypeAheadHandle
	// mu orders a submitted line's draft write (on the key reader's
	// goroutine) with takeTypeAhead's (on the run's), so the draft file
	// never goes back to a state without a line the user submitted.
	mu      sync.Mutex
	pending []string
}

// startTypeAhead lets the user type a reply for the rest of the turn
// loop, when the printer can read keys. The returned stop ends it: text
// typed and not submitted then becomes the queued reply too, so it is
// kept as the draft (nothing typed is lost).
func (q *Query) startTypeAhead(ctx context.Context, rs *runState) (stop func()) {
	tp, ok := q.printer.(ports.TypeAhead)
	if !ok {
		return func() {}
	}
	ta := &typeAhead{}
	h, ok := tp.StartTypeAhead(func(text string) {
		ta.mu.Lock()
		defer ta.mu.Unlock()
		ta.pending = append(ta.pending, text)
		// The line is on disk at once, not at the turn boundary: a run
		// killed before then (SIGKILL, a crash) still leaves it in the
		// draft. takeTypeAhead writes the same text again from the slot;
		// an error here is reported there.
		_ = q.appendDraft(context.WithoutCancel(ctx), rs.loc, rs.id, text)
	})
	if !ok {
		return func() {}
	}
	ta.h = h
	rs.typeAhead = ta
	return func() {
		if unsent := h.Stop(); unsent != "" {
			ta.mu.Lock()
			ta.pending = append(ta.pending, unsent)
			ta.mu.Unlock()
		}
	}
}

// takeTypeAhead moves submitted lines into the queued-reply slot (after
// a reply already queued) and keeps the slot as the draft. It reports
// whether it took any.
func (q *Query) takeTypeAhead(ctx context.Context, rs *runState) bool {
	ta := rs.typeAhead
	if ta == nil {
		return false
	}
	ta.mu.Lock()
	defer ta.mu.Unlock()
	lines := ta.pending
	ta.pending = nil
	if len(lines) == 0 {
		return false
	}
	ta.h.Taken()
	text := strings.Join(lines, "\n\n")
	if prev, ok := rs.slot.Text(); ok && strings.TrimSpace(prev) != "" {
		text = prev + "\n\n" + text
	}
	rs.slot.Fill(text)
	if err := q.keepDraft(context.WithoutCancel(ctx), rs.loc, rs.id, text); err != nil {
		q.printer.Write(ports.ChannelError, "could not save the queued reply as a draft: "+err.Error())
		q.printer.EndBlock(ports.ChannelError)
	}
	return true
}

// appendDraft adds text to the end of the draft's query text (after a
// blank line), keeping its meta section: the draft already holds the
// queued reply, if any, and each line submitted before this one.
func (q *Query) appendDraft(ctx context.Context, loc workspace.Location, id conversation.ID, text string) error {
	doc := draft.Parse("")
	if d, err := q.drafts.ReadDraft(ctx, loc, id); err == nil {
		doc = draft.Parse(d.Text)
	} else if !errors.Is(err, ports.ErrNotFound) {
		return err
	}
	if prev := doc.Query(); strings.TrimSpace(prev) != "" {
		text = prev + "\n\n" + text
	}
	_, err := q.drafts.WriteDraft(ctx, loc, id, doc.WithQuery(text).Render(), "")
	return err
}

// echoMessage puts the message a turn sends into the scrollback (a
// terminal printer only), after a rule when another turn came before.
func (q *Query) echoMessage(text string, rule bool) {
	if e, ok := q.printer.(ports.TurnEcho); ok {
		e.EchoMessage(text, rule)
	}
}
