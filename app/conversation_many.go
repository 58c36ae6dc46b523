package app

import (
	"context"
	"slices"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

// The use cases of the commands that take several conversations at once
// (jp conversation rm, jp conversation path): the loop over them and its
// error rules live here, so the commands only parse, call once and print.

// ResolveEach resolves what the user named (IDs, unique prefixes, "" for
// the active conversation, or targets naming several, as ResolveAll takes
// them) to the summaries of those conversations, in order, each once. The
// first that does not resolve is the error.
func (c *Conversations) ResolveEach(ctx context.Context, loc workspace.Location, raws []string) ([]conversation.Summary, error) {
	var out []conversation.Summary
	seen := map[conversation.ID]bool{}
	for _, raw := range raws {
		ids, err := c.ResolveAll(ctx, loc, raw)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			s, err := c.Get(ctx, loc, id)
			if err != nil {
				return nil, err
			}
			s.ID = id
			seen[id] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// TrashAll moves the conversations ids to the trash in order, each under
// its lock as Trash does; an ID given twice is trashed once. It stops at
// the first that fails and returns the IDs it moved before it with the
// error: those stay in the trash, the rest stay where they are.
func (c *Conversations) TrashAll(ctx context.Context, loc workspace.Location, ids []conversation.ID) ([]conversation.ID, error) {
	done := make([]conversation.ID, 0, len(ids))
	for _, id := range ids {
		if slices.Contains(done, id) {
			continue
		}
		if err := c.Trash(ctx, loc, id); err != nil {
			return done, err
		}
		done = append(done, id)
	}
	return done, nil
}

// PathsOf returns the paths jp conversation path prints for the
// conversations raws name (as Resolve takes them), in order: each one's
// directory, or with files non-empty, those files in it (see Paths). It
// stops at the first that fails and returns the paths of those before it
// with the error.
func (c *Conversations) PathsOf(ctx context.Context, loc workspace.Location, raws []string, files ...string) ([]string, error) {
	var out []string
	for _, raw := range raws {
		id, err := c.Resolve(ctx, loc, raw)
		if err != nil {
			return out, err
		}
		paths, err := c.Paths(ctx, loc, id, files...)
		if err != nil {
			return out, err
		}
		out = append(out, paths...)
	}
	return out, nil
}
