package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Runs that keep nothing (docs/scripting.md, "Runs that keep nothing"):
//
//   - jp q --tmp runs a new conversation in the store, never projected
//     into the checkout and never made the active one, and removes it when
//     the run ends, on every path that returns (an answer, an error, a
//     Ctrl-C or SIGTERM shutdown); a queued reply answered in the same run
//     is part of it.
//   - jp q --no-persist runs on a Query whose conversation store, drafts
//     and locks are in memory (InMemory): no conversation directory, no
//     draft, no checkout record and no active conversation are written.
//
// Either way, text the user composed in the terminal or editor that was
// not answered by the end of the run (an error, an interrupt, a reply left
// queued) would be lost with the conversation: it is kept instead as the
// draft of a new, ordinary (--local) conversation in the real store, and
// one line names it. Text given as an argument or on stdin is not kept.

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
	case (in.Tmp || in.NoPersist) && in.Conversation != "":
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

// endEphemeral ends a --tmp or --no-persist run's conversation: an
// unanswered composed message still in its draft is rescued, then a --tmp
// conversation is removed. It runs while the run still holds the
// conversation's lock, on every path out of Run.
func (q *Query) endEphemeral(ctx context.Context, loc workspace.Location, id conversation.ID, in QueryInput) {
	ctx = context.WithoutCancel(ctx) // a shutdown must not stop the cleanup
	q.rescueDraft(ctx, loc, id)
	if !in.Tmp {
		return
	}
	if err := q.store.Remove(ctx, loc, id); err != nil && !errors.Is(err, ports.ErrNotFound) {
		q.chromeNote(fmt.Sprintf("The temporary conversation %s could not be removed: %v (remove it with jp conversation rm %s).", id, err, id))
	}
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
