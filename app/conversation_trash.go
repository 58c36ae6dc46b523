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

// Trash moves a conversation to the workspace's trash, holding its lock;
// Restore brings it back within ports.TrashKeep.
func (c *Conversations) Trash(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	return c.locked(ctx, loc, id, func() error { return c.store.Trash(ctx, loc, id) })
}

// Trashed lists the workspace's trash, most recently removed first.
func (c *Conversations) Trashed(ctx context.Context, loc workspace.Location) ([]ports.TrashedConversation, error) {
	return c.store.Trashed(ctx, loc)
}

// Restore brings a trashed conversation back. raw is an ID or a unique
// prefix of one in the trash; empty means the most recently removed.
// It returns the restored conversation's ID.
func (c *Conversations) Restore(ctx context.Context, loc workspace.Location, raw string) (conversation.ID, error) {
	list, err := c.store.Trashed(ctx, loc)
	if err != nil {
		return "", err
	}
	id, err := pickTrashed(list, strings.TrimSpace(raw))
	if err != nil {
		return "", err
	}
	release, err := c.locker.Lock(ctx, loc, id, LockWait)
	if err != nil {
		return "", LockError(err)
	}
	defer func() { _ = release() }()
	err = c.store.Restore(ctx, loc, id)
	if errors.Is(err, ports.ErrExists) {
		return "", &UserError{Msg: fmt.Sprintf("conversation %s exists again in this workspace; remove it (jp conversation rm %s) to restore the one in the trash", id, id), Err: err}
	}
	return id, userNotFound(err)
}

// pickTrashed resolves what the user typed against the trash.
func pickTrashed(list []ports.TrashedConversation, raw string) (conversation.ID, error) {
	if len(list) == 0 {
		return "", &UserError{Msg: fmt.Sprintf("the trash is empty: removed conversations are kept there for %d days", int(ports.TrashKeep.Hours()/24))}
	}
	if raw == "" {
		return list[0].ID, nil
	}
	if strings.Trim(raw, "0123456789") != "" {
		return ParseID(raw)
	}
	var matches []ports.TrashedConversation
	seen := map[conversation.ID]bool{}
	for _, t := range list {
		if strings.HasPrefix(string(t.ID), raw) && !seen[t.ID] {
			seen[t.ID] = true
			matches = append(matches, t)
		}
	}
	switch len(matches) {
	case 0:
		return "", &UserError{Msg: fmt.Sprintf("conversation %s is not in the trash: list it with jp conversation restore --list", raw)}
	case 1:
		return matches[0].ID, nil
	}
	names := make([]string, 0, maxCandidates+1)
	for i, t := range matches {
		if i == maxCandidates {
			names = append(names, fmt.Sprintf("and %d more", len(matches)-maxCandidates))
			break
		}
		names = append(names, fmt.Sprintf("%s (%s)", t.ID, trimOneLine(t.Title, 30)))
	}
	return "", &UserError{Msg: fmt.Sprintf("%s matches %d conversations in the trash: %s; give more digits", raw, len(matches), strings.Join(names, ", "))}
}
