package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/ports"
)

// The data and mutation requests of docs/plugins.md, each a small function over
// the storage and configuration ports. Requests have been validated: a
// conversation ID is well-formed.

func (s *session) listConversations(ctx context.Context, c *checkout, req plugin.ListConversations) (plugin.Message, error) {
	list, err := s.h.store.List(ctx, c.loc)
	if err != nil {
		return nil, err
	}
	list, bad := app.Unreadable(list)
	for _, line := range bad {
		s.h.printer.Write(ports.ChannelError, line)
		s.h.printer.EndBlock(ports.ChannelError)
	}
	app.SortSummaries(list)
	data := make([]plugin.ConversationSummary, len(list))
	for i, c := range list {
		data[i] = plugin.SummaryOf(c)
	}
	return plugin.Conversations{ID: req.ID, Data: data}, nil
}

// configCache keeps a checkout's encoded configuration per path: it does
// not change during a run.
type configCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

// maxCachedPaths bounds the cache.
const maxCachedPaths = 256

func (s *session) readConfig(ctx context.Context, c *checkout, req plugin.ReadConfig) (plugin.Message, error) {
	c.config.mu.Lock()
	data, ok := c.config.m[req.Path]
	c.config.mu.Unlock()
	if !ok {
		res, err := s.configFor(ctx, c)
		if err != nil {
			return nil, err
		}
		v, err := config.Lookup(pluginTree(res, s.name), req.Path)
		if err != nil {
			return nil, err
		}
		if data, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("encode configuration %s: %w", req.Path, err)
		}
		c.config.mu.Lock()
		if len(c.config.m) < maxCachedPaths {
			c.config.m[req.Path] = data
		}
		c.config.mu.Unlock()
	}
	return plugin.Config{ID: req.ID, Path: req.Path, Data: data}, nil
}

func (s *session) readDraft(ctx context.Context, c *checkout, req plugin.ReadDraft) (plugin.Message, error) {
	id := conversation.ID(req.Conversation)
	if _, err := s.h.store.Get(ctx, c.loc, id); err != nil {
		return nil, err
	}
	d, err := s.h.drafts.ReadDraft(ctx, c.loc, id)
	if errors.Is(err, ports.ErrNotFound) {
		return plugin.Draft{ID: req.ID, Conversation: req.Conversation}, nil
	}
	if err != nil {
		return nil, err
	}
	return plugin.Draft{ID: req.ID, Conversation: req.Conversation, Text: draft.Parse(d.Text).Query(), Revision: d.Revision}, nil
}

// draftRetries bounds the retries of a write_draft without a revision
// that raced another writer.
const draftRetries = 3

// writeDraft replaces the draft's query text and keeps its meta section
// byte for byte. With a revision it fails unless the draft still has it;
// without one, the revision read here guards the meta section that is
// kept.
func (s *session) writeDraft(ctx context.Context, c *checkout, req plugin.WriteDraft) (plugin.Message, error) {
	id := conversation.ID(req.Conversation)
	res, err := s.configFor(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := conversation.CheckSize("the draft", *req.Text, res.Config.Conversation.Limits.DraftBytes, "conversation.limits.draft_bytes"); err != nil {
		return nil, err
	}
	if _, err := s.h.store.Get(ctx, c.loc, id); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		cur, err := s.h.drafts.ReadDraft(ctx, c.loc, id)
		if err != nil && !errors.Is(err, ports.ErrNotFound) {
			return nil, err
		}
		if req.Revision != "" && cur.Revision != req.Revision {
			return nil, staleDraft(req.Revision)
		}
		doc := draft.Parse(cur.Text).WithQuery(*req.Text).Render()
		rev, err := s.h.drafts.WriteDraft(ctx, c.loc, id, doc, cur.Revision)
		switch {
		case err == nil:
			return plugin.DraftWritten{ID: req.ID, Revision: rev}, nil
		case !errors.Is(err, ports.ErrRevisionMismatch):
			return nil, err
		case req.Revision != "":
			return nil, staleDraft(req.Revision)
		case attempt == draftRetries:
			return nil, fmt.Errorf("the draft of conversation %s keeps changing; try again", id)
		}
	}
}

func staleDraft(rev string) error {
	return fmt.Errorf("the draft is no longer at revision %s (it changed since it was read): read_draft again: %w", rev, ports.ErrRevisionMismatch)
}

func (s *session) createConversation(ctx context.Context, c *checkout, req plugin.CreateConversation) (plugin.Message, error) {
	title, err := conversation.CheckTitle(req.Title, true)
	if err != nil {
		return nil, err
	}
	id, err := s.h.store.Create(ctx, c.loc, ports.NewConversation{Title: title, Local: req.Local})
	if err != nil {
		return nil, err
	}
	return plugin.Created{ID: req.ID, Conversation: string(id)}, nil
}

func (s *session) setTitle(ctx context.Context, c *checkout, req plugin.SetTitle) (plugin.Message, error) {
	title, err := conversation.CheckTitle(req.Title, false)
	if err != nil {
		return nil, err
	}
	err = s.updateMetadata(ctx, c, req.Conversation, func(m *conversation.Metadata) { m.Title = title })
	if err != nil {
		return nil, err
	}
	return plugin.TitleSet{ID: req.ID}, nil
}

func (s *session) archive(ctx context.Context, c *checkout, req plugin.Archive) (plugin.Message, error) {
	now := s.h.clock.Now().UTC()
	err := s.updateMetadata(ctx, c, req.Conversation, func(m *conversation.Metadata) {
		if m.ArchivedAt == nil {
			m.ArchivedAt = &now
		}
	})
	if err != nil {
		return nil, err
	}
	return plugin.Archived{ID: req.ID}, nil
}

func (s *session) unarchive(ctx context.Context, c *checkout, req plugin.Unarchive) (plugin.Message, error) {
	if err := s.updateMetadata(ctx, c, req.Conversation, func(m *conversation.Metadata) { m.ArchivedAt = nil }); err != nil {
		return nil, err
	}
	return plugin.Unarchived{ID: req.ID}, nil
}

// updateMetadata rewrites a conversation's metadata under its lock: the
// plugin's own when it holds it, else taken for the change.
func (s *session) updateMetadata(ctx context.Context, c *checkout, conv string, fn func(*conversation.Metadata)) error {
	id := conversation.ID(conv)
	if _, err := s.h.store.Get(ctx, c.loc, id); err != nil {
		return err
	}
	if err := s.turns.busy(lockKey(c, conv)); err != nil {
		return err
	}
	return s.locks.with(lockKey(c, conv), func(held bool) error {
		if !held {
			release, err := s.h.locker.Lock(ctx, c.loc, id, app.LockWait)
			if err != nil {
				return app.LockError(err)
			}
			defer func() { _ = release() }()
		}
		return s.h.store.UpdateMetadata(ctx, c.loc, id, func(m *conversation.Metadata) error { fn(m); return nil })
	})
}

func (s *session) lock(ctx context.Context, c *checkout, req plugin.Lock) (plugin.Message, error) {
	id := conversation.ID(req.Conversation)
	if _, err := s.h.store.Get(ctx, c.loc, id); err != nil {
		return nil, err
	}
	if s.locks.holds(lockKey(c, req.Conversation)) {
		return s.locked(req.ID, req.Conversation), nil
	}
	if err := s.turns.busy(lockKey(c, req.Conversation)); err != nil {
		return nil, err
	}
	release, err := s.h.locker.Lock(ctx, c.loc, id, app.LockWait)
	if err != nil {
		return nil, app.LockError(err)
	}
	s.locks.add(lockKey(c, req.Conversation), release)
	return s.locked(req.ID, req.Conversation), nil
}

// locked is the answer to lock: protocol 1 names the conversation.
func (s *session) locked(id, conv string) plugin.Locked {
	if s.version.Load() < 2 {
		return plugin.Locked{ID: id, Conversation: conv}
	}
	return plugin.Locked{ID: id}
}

func (s *session) unlock(ctx context.Context, c *checkout, req plugin.Unlock) (plugin.Message, error) {
	if !s.locks.release(lockKey(c, req.Conversation), s.log, s.name) {
		return nil, fmt.Errorf("conversation %s is not locked by this plugin", req.Conversation)
	}
	if s.version.Load() < 2 {
		return plugin.Unlocked{ID: req.ID, Conversation: req.Conversation}, nil
	}
	return plugin.Unlocked{ID: req.ID}, nil
}

// pushEvents appends a protocol-1 plugin's events to a conversation it
// holds the lock of. Each is decoded as a stored event; one without an
// id or timestamp gets one; the store checks the stream's invariants, so
// a batch that would break them is refused whole.
func (s *session) pushEvents(ctx context.Context, c *checkout, req plugin.PushEvents) (plugin.Message, error) {
	if !s.locks.holds(lockKey(c, req.Conversation)) {
		return nil, fmt.Errorf("push_events needs the conversation's lock: send lock for conversation %s first", req.Conversation)
	}
	evs := make([]conversation.Event, 0, len(req.Events))
	for i, raw := range req.Events {
		ev, err := s.h.events.DecodeEvent(raw)
		if err != nil {
			return nil, fmt.Errorf("events[%d] is not a conversation event: %v", i, err)
		}
		if ev.ID == "" {
			if s.h.ids == nil {
				return nil, fmt.Errorf("events[%d] has no id, and this jp cannot give it one here: send an id", i)
			}
			ev.ID = s.h.ids.NewID()
		}
		if ev.Timestamp.IsZero() {
			ev.Timestamp = s.h.clock.Now().UTC()
		}
		// A pushed event is jp's append, held to the stream's rules, even
		// when it came without an id (which reads as the Rust jp's form).
		ev.Legacy = false
		evs = append(evs, ev)
	}
	if err := s.h.store.Append(ctx, c.loc, conversation.ID(req.Conversation), evs...); err != nil {
		return nil, fmt.Errorf("events not pushed (none were stored): %w", err)
	}
	return plugin.EventsPushed{ID: req.ID, Conversation: req.Conversation, Count: len(evs)}, nil
}
