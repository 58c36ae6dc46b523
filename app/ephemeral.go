package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Runs that keep little (docs/scripting.md, "Runs that keep nothing"):
//
//   - jp q --tmp[=DURATION] runs a new conversation, never projected into
//     the checkout, whose metadata.json records when it expires
//     (expires_at, the Rust jp's key): its creation plus DURATION (bare
//     --tmp: its creation). It is the active conversation like any new
//     one, so later turns can continue it; at the end of each jp q run,
//     every conversation that has expired and is neither the active one
//     nor in use by another process is removed (sweepExpired), as the
//     Rust jp does at the end of each command.
//   - jp q --no-persist runs on a Query whose conversation store, drafts
//     and locks are in memory (InMemory): no conversation directory, no
//     draft, no checkout record and no active conversation are written.
//     Text the user composed in the terminal or editor that was not
//     answered by the end of the run would be lost with it: it is kept
//     instead as the draft of a new, ordinary (--local) conversation in
//     the real store, and one line names it. Text given as an argument or
//     on stdin is not kept.

// ScratchStore is what InMemory needs: conversations, drafts and locks
// that live only as long as the process.
type ScratchStore interface {
	ports.ConversationStore
	ports.DraftStore
	ports.Locker
}

// InMemory returns a copy of the Query that records its run into s
// instead of the real store, for jp q --no-persist. The copy keeps the
// real store to rescue an unanswered composed message into (see above).
func (q *Query) InMemory(s ScratchStore) *Query {
	c := *q
	c.durable = &durableStore{store: q.store, drafts: q.drafts}
	c.store, c.drafts, c.locker, c.ckpts = s, s, s, nil
	return &c
}

// durableStore is the real store of a Query running in memory.
type durableStore struct {
	store  ports.ConversationStore
	drafts ports.DraftStore
}

// checkEphemeral refuses the flag combinations --tmp and --no-persist do
// not support, before anything is touched.
func (q *Query) checkEphemeral(in QueryInput) error {
	switch {
	case in.Tmp && in.NoPersist:
		return &UsageError{Msg: "--tmp and --no-persist exclude each other (--no-persist stores nothing at all)"}
	case in.Tmp && in.Conversation != "":
		return &UsageError{Msg: fmt.Sprintf("%s always starts a new conversation: drop -i (to ask in the context of a conversation, fork it: jp conversation fork)", ephemeralFlag(in))}
	case in.NoPersist && q.durable == nil:
		return errors.New("--no-persist: the query was not given an in-memory store")
	}
	return nil
}

func ephemeralFlag(in QueryInput) string {
	if in.Tmp {
		return "--tmp"
	}
	return "--no-persist"
}

// storageOf is the start record's storage field: how long the run's
// conversation lives.
func storageOf(in QueryInput) string {
	switch {
	case in.Tmp:
		return "tmp"
	case in.NoPersist:
		return "none"
	}
	return ""
}

// endEphemeral ends a --no-persist run's conversation: an unanswered
// composed message still in its draft is rescued. It runs while the run
// still holds the conversation's lock, on every path out of Run.
func (q *Query) endEphemeral(ctx context.Context, loc workspace.Location, id conversation.ID, _ QueryInput) {
	ctx = context.WithoutCancel(ctx) // a shutdown must not stop the cleanup
	q.rescueDraft(ctx, loc, id)
}

// setExpiry records when a --tmp conversation expires: for after its
// creation (the time in its ID), as the Rust jp does.
func (q *Query) setExpiry(ctx context.Context, loc workspace.Location, id conversation.ID, after time.Duration) error {
	at := id.Time().Add(after)
	return q.store.UpdateMetadata(ctx, loc, id, func(m *conversation.Metadata) error {
		m.SetExpiresAt(&at)
		return nil
	})
}

// sweepExpired removes the conversations of loc that have expired, other
// than keep and the active one, skipping any another process holds. It
// runs on every path out of a run that stores its conversation; a failure
// leaves the conversation for the next run. A store that keeps an expiry
// record (ports.ExpiryRecord) is listed only when a conversation may have
// expired, and is told the earliest expiry left.
func (q *Query) sweepExpired(ctx context.Context, loc workspace.Location, keep conversation.ID) {
	ctx = context.WithoutCancel(ctx)
	now := q.clock.Now()
	rec, _ := q.store.(ports.ExpiryRecord)
	var state string
	if rec != nil {
		var needed bool
		if needed, state = rec.SweepNeeded(ctx, loc, now, keep); !needed {
			return
		}
	}
	list, err := q.store.List(ctx, loc)
	if err != nil {
		return
	}
	active, _ := q.store.Active(ctx, loc)
	var next time.Time // the earliest expiry left
	for _, s := range list {
		at, has := s.Metadata.ExpiresAt()
		if !has || s.Unreadable != nil || s.ID == keep { // keep's expiry: read when another run asks
			continue
		}
		if s.ID == active || !s.Metadata.Expired(now) || !q.removeExpired(ctx, loc, s.ID) {
			if next.IsZero() || at.Before(next) {
				next = at
			}
		}
	}
	if rec != nil {
		_ = rec.RecordNextExpiry(ctx, loc, state, next)
	}
}

// removeExpired removes the expired conversation id unless another
// process holds it, and reports whether it is gone.
func (q *Query) removeExpired(ctx context.Context, loc workspace.Location, id conversation.ID) bool {
	release, err := q.locker.Lock(ctx, loc, id, 0)
	if err != nil {
		return false // in use: the next run sweeps it
	}
	defer func() { _ = release() }()
	if err := q.store.Remove(ctx, loc, id); err != nil && !errors.Is(err, ports.ErrNotFound) {
		q.chromeNote(fmt.Sprintf("The expired conversation %s could not be removed: %v (remove it with jp conversation rm %s).", id, err, id))
		return false
	}
	return true
}

// rescueDraft moves the draft of a conversation about to vanish into a new
// ordinary conversation, so that nothing the user typed is lost.
func (q *Query) rescueDraft(ctx context.Context, loc workspace.Location, id conversation.ID) {
	d, err := q.drafts.ReadDraft(ctx, loc, id)
	if err != nil {
		return // none (or unreadable: nothing to rescue from)
	}
	text := draft.Parse(d.Text).Query()
	if strings.TrimSpace(text) == "" {
		return
	}
	store, drafts := q.store, q.drafts
	if q.durable != nil {
		store, drafts = q.durable.store, q.durable.drafts
	}
	nid, err := store.Create(ctx, loc, ports.NewConversation{Title: titleFrom(text), Local: true})
	if err == nil {
		_, err = drafts.WriteDraft(ctx, loc, nid, draft.Parse("").WithQuery(text).Render(), "")
	}
	if err != nil {
		q.printer.Write(ports.ChannelError, "Not sent. What you typed:\n"+text)
		q.printer.EndBlock(ports.ChannelError)
		return
	}
	q.chromeNote(fmt.Sprintf("Not answered. What you typed is the draft of conversation %s: jp q -i %s opens it again.", nid, nid))
}

// scratchCopy picks the conversation of a jp q --no-persist run, as the
// Rust jp does: the one -i names, else the active one (none: a new one).
// Its events are copied into the run's in-memory store, where the run
// appends; the real conversation is only read.
func (q *Query) scratchCopy(ctx context.Context, loc workspace.Location, in QueryInput) (conversation.ID, error) {
	real := q.durable.store
	var id conversation.ID
	if in.Conversation != "" {
		var err error
		if id, err = resolveConversation(ctx, real, loc, in.Conversation); err != nil {
			return "", err
		}
	} else if id, _ = real.Active(ctx, loc); id == "" {
		return "", nil
	}
	sum, err := real.Get(ctx, loc, id)
	if err != nil {
		return "", err
	}
	return q.store.CreateFrom(ctx, loc, ports.NewConversation{Title: sum.Metadata.Title, Local: true},
		func(add func(conversation.Event) error) error {
			return real.ScanEvents(ctx, loc, id, add)
		})
}
