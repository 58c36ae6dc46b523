package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// maxCandidates is how many conversations an ambiguous prefix names.
const maxCandidates = 5

// Resolve turns what the user typed for a conversation into its ID: a
// whole ID, a prefix of exactly one ID visible from loc (archived ones
// included), or a target keyword with the Rust jp's meaning (., active,
// recent, newest, pinned, session, archived and their one-letter forms;
// see IsTarget). Empty means the active conversation (Active). An
// ambiguous prefix is an error listing the candidates.
func (c *Conversations) Resolve(ctx context.Context, loc workspace.Location, raw string) (conversation.ID, error) {
	return resolveConversation(ctx, c.store, loc, raw)
}

// Active returns the checkout's active conversation: the one jp query last
// used in it (or jp conversation use set), else the most recently active
// unarchived one this user has a copy of (never one that exists only in
// the checkout, as shipped in the repository). "" when there is none.
func (c *Conversations) Active(ctx context.Context, loc workspace.Location) (conversation.ID, error) {
	return activeConversation(ctx, c.store, loc)
}

// Use makes id the checkout's active conversation.
func (c *Conversations) Use(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	if _, err := c.Get(ctx, loc, id); err != nil {
		return err
	}
	return c.store.SetActive(ctx, loc, id)
}

func resolveConversation(ctx context.Context, store ports.ConversationStore, loc workspace.Location, raw string) (conversation.ID, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		id, err := activeConversation(ctx, store, loc)
		if err != nil {
			return "", err
		}
		if id == "" {
			return "", &UserError{Msg: "no conversation yet in this checkout: start one with jp query, or name one (jp conversation ls)"}
		}
		return id, nil
	}
	if IsTarget(raw) {
		return resolveKeyword(ctx, store, loc, raw)
	}
	var notFound error // a whole ID that is not found, unless it is a prefix
	if _, err := conversation.ParseID(raw); err != nil {
		if strings.Trim(raw, "0123456789") != "" {
			return ParseID(raw)
		}
	} else if _, err := store.Get(ctx, loc, conversation.ID(raw)); err == nil {
		return conversation.ID(raw), nil
	} else if errors.Is(err, ports.ErrNotFound) {
		notFound = err
	} else {
		return "", err
	}
	list, err := store.List(ctx, loc)
	if err != nil {
		return "", err
	}
	var matches []conversation.Summary
	for _, s := range list {
		if strings.HasPrefix(string(s.ID), raw) {
			matches = append(matches, s)
		}
	}
	switch len(matches) {
	case 0:
		if notFound != nil {
			return "", userNotFound(notFound)
		}
		return "", &UserError{Msg: fmt.Sprintf("conversation %s not found: list conversations with jp conversation ls", raw)}
	case 1:
		return matches[0].ID, nil
	}
	SortSummaries(matches)
	names := make([]string, 0, maxCandidates)
	for i, s := range matches {
		if i == maxCandidates {
			names = append(names, fmt.Sprintf("and %d more", len(matches)-maxCandidates))
			break
		}
		names = append(names, fmt.Sprintf("%s (%s)", s.ID, trimOneLine(s.Metadata.Title, 30)))
	}
	return "", &UserError{Msg: fmt.Sprintf("%s matches %d conversations: %s; give more digits", raw, len(matches), strings.Join(names, ", "))}
}

func activeConversation(ctx context.Context, store ports.ConversationStore, loc workspace.Location) (conversation.ID, error) {
	id, err := store.Active(ctx, loc)
	if err != nil {
		return "", err
	}
	if id != "" {
		if s, err := store.Get(ctx, loc, id); err == nil && !s.Metadata.Archived() {
			return id, nil
		}
	}
	list, err := store.List(ctx, loc)
	if err != nil {
		return "", err
	}
	var best *conversation.Summary
	for i := range list {
		s := &list[i]
		// A conversation only in the checkout came with the repository:
		// its last_activated_at is whoever committed it, not this user.
		if s.Metadata.Archived() || s.Storage == conversation.StorageWorkspaceOnly || s.Unreadable != nil {
			continue
		}
		if best == nil || s.Metadata.LastActivatedAt.After(best.Metadata.LastActivatedAt) ||
			(s.Metadata.LastActivatedAt.Equal(best.Metadata.LastActivatedAt) && s.ID > best.ID) {
			best = s
		}
	}
	if best == nil {
		return "", nil
	}
	return best.ID, nil
}

// trimOneLine shortens s to one line of at most n runes.
func trimOneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
