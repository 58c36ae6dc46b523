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

// Target keywords, with the Rust jp's meanings, accepted wherever a
// conversation ID is.
const (
	targetActive   = "active"   // also "."
	targetRecent   = "recent"   // also "r"
	targetNewest   = "newest"   // also "n"
	targetPinned   = "pinned"   // also "p"
	targetSession  = "session"  // also "s"
	targetArchived = "archived" // also "a"
)

// targetAliases maps every single-conversation keyword to its name.
var targetAliases = map[string]string{
	"active": targetActive, ".": targetActive,
	"recent": targetRecent, "r": targetRecent,
	"newest": targetNewest, "n": targetNewest,
	"pinned": targetPinned, "p": targetPinned,
	"session": targetSession, "s": targetSession,
	"archived": targetArchived, "a": targetArchived,
}

// multiTargets maps every keyword naming a set of conversations to its
// name.
var multiTargets = map[string]string{
	"+live": "+live", "+l": "+live",
	"+session": "+session", "+s": "+session",
	"+pinned": "+pinned", "+p": "+pinned",
	"+archived": "+archived", "+a": "+archived",
}

// PickerFilter scopes the ? picker.
type PickerFilter struct {
	Pinned   bool // ?p, ?pinned: pinned conversations only
	Session  bool // ?s, ?session: this terminal session's only
	Archived bool // ?a, ?archived: archived conversations only
}

// ParsePicker reports whether raw asks for the interactive picker (?, ?p,
// ?pinned, ?s, ?session, ?a, ?archived) and with which scope.
func ParsePicker(raw string) (PickerFilter, bool) {
	switch strings.TrimSpace(raw) {
	case "?":
		return PickerFilter{}, true
	case "?p", "?pinned":
		return PickerFilter{Pinned: true}, true
	case "?s", "?session":
		return PickerFilter{Session: true}, true
	case "?a", "?archived":
		return PickerFilter{Archived: true}, true
	}
	return PickerFilter{}, false
}

// IsTarget reports whether raw is a target keyword rather than an ID or a
// prefix of one: a keyword, a set keyword (+live ...), - (IDs on standard
// input) or a picker.
func IsTarget(raw string) bool {
	raw = strings.TrimSpace(raw)
	if _, ok := targetAliases[raw]; ok {
		return true
	}
	if _, ok := multiTargets[raw]; ok {
		return true
	}
	_, ok := ParsePicker(raw)
	return ok || raw == "-"
}

// ResolveAll is Resolve for commands that take several conversations: a
// set keyword (+live, +session, +pinned, +archived) gives every
// conversation it names, anything else the one Resolve gives.
func (c *Conversations) ResolveAll(ctx context.Context, loc workspace.Location, raw string) ([]conversation.ID, error) {
	name, ok := multiTargets[strings.TrimSpace(raw)]
	if !ok {
		id, err := c.Resolve(ctx, loc, raw)
		if err != nil {
			return nil, err
		}
		return []conversation.ID{id}, nil
	}
	list, err := c.store.List(ctx, loc)
	if err != nil {
		return nil, err
	}
	var session map[conversation.ID]bool
	if name == "+session" {
		if session, err = sessionIDs(ctx, c.store, loc); err != nil {
			return nil, err
		}
	}
	var ids []conversation.ID
	for _, s := range list {
		if s.Unreadable != nil {
			continue
		}
		m := s.Metadata
		var in bool
		switch name {
		case "+live":
			in = !m.Archived()
		case "+session":
			in = session[s.ID]
		case "+pinned":
			in = !m.Archived() && m.Pinned()
		case "+archived":
			in = m.Archived()
		}
		if in {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) == 0 {
		return nil, &UserError{Msg: fmt.Sprintf("%s names no conversation here: list them with jp conversation ls", name)}
	}
	return ids, nil
}

// PickerCandidates lists the conversations the ? picker offers under f,
// in jp conversation ls order: unarchived ones (archived ones only for
// ?a), pinned ones only for ?p, this session's only for ?s.
func (c *Conversations) PickerCandidates(ctx context.Context, loc workspace.Location, f PickerFilter) ([]conversation.Summary, error) {
	list, err := c.store.List(ctx, loc)
	if err != nil {
		return nil, err
	}
	var session map[conversation.ID]bool
	if f.Session {
		if session, err = sessionIDs(ctx, c.store, loc); err != nil {
			return nil, err
		}
	}
	var out []conversation.Summary
	for _, s := range list {
		m := s.Metadata
		if s.Unreadable != nil || m.Archived() != f.Archived ||
			(f.Pinned && !m.Pinned()) || (f.Session && !session[s.ID]) {
			continue
		}
		out = append(out, s)
	}
	SortSummaries(out)
	return out, nil
}

// sessionIDs is the terminal session's conversations: its active one and
// the one before it.
func sessionIDs(ctx context.Context, store ports.ConversationStore, loc workspace.Location) (map[conversation.ID]bool, error) {
	out := map[conversation.ID]bool{}
	for _, get := range []func(context.Context, workspace.Location) (conversation.ID, error){store.Active, store.Previous} {
		id, err := get(ctx, loc)
		if err != nil {
			return nil, err
		}
		if id != "" {
			out[id] = true
		}
	}
	return out, nil
}

// resolveKeyword resolves a target keyword (IsTarget) to one conversation.
func resolveKeyword(ctx context.Context, store ports.ConversationStore, loc workspace.Location, raw string) (conversation.ID, error) {
	if _, ok := ParsePicker(raw); ok {
		return "", &UserError{Msg: fmt.Sprintf("%s picks a conversation interactively and needs a terminal: give a conversation ID instead (jp conversation ls)", raw)}
	}
	if raw == "-" {
		return "", &UserError{Msg: "- reads conversation IDs from standard input, which this command does not take: give a conversation ID instead"}
	}
	if name, ok := multiTargets[raw]; ok {
		return "", &UserError{Msg: fmt.Sprintf("%s names several conversations and this command takes one: give a conversation ID", name)}
	}
	name := targetAliases[raw]
	switch name {
	case targetActive:
		id, err := activeConversation(ctx, store, loc)
		if err != nil {
			return "", err
		}
		if id == "" {
			return "", &UserError{Msg: "no active conversation here: start one with jp query, or pick one with jp conversation use"}
		}
		return id, nil
	case targetSession:
		id, err := store.Previous(ctx, loc)
		if err != nil {
			return "", err
		}
		if id != "" {
			_, err := store.Get(ctx, loc, id)
			if err == nil {
				return id, nil
			}
			if !errors.Is(err, ports.ErrNotFound) {
				return "", err
			}
		}
		return "", &UserError{Msg: "no previous conversation in this session: jp conversation use records one each time the active conversation changes"}
	}
	list, err := store.List(ctx, loc)
	if err != nil {
		return "", err
	}
	var best *conversation.Summary
	for i := range list {
		s := &list[i]
		m := s.Metadata
		if s.Unreadable != nil || m.Archived() != (name == targetArchived) || (name == targetPinned && !m.Pinned()) {
			continue
		}
		if best == nil || targetBetter(name, s, best) {
			best = s
		}
	}
	if best == nil {
		what := map[string]string{targetRecent: "conversation", targetNewest: "conversation", targetPinned: "pinned conversation", targetArchived: "archived conversation"}[name]
		return "", &UserError{Msg: fmt.Sprintf("%s: there is no %s here (jp conversation ls lists them)", raw, what)}
	}
	return best.ID, nil
}

// targetBetter reports whether s ranks above best for the keyword name:
// the latest activated (recent), created (newest: the ID is its creation
// time), pinned or archived; ties go to the newer ID.
func targetBetter(name string, s, best *conversation.Summary) bool {
	var a, b int64
	switch name {
	case targetRecent:
		a, b = s.Metadata.LastActivatedAt.UnixNano(), best.Metadata.LastActivatedAt.UnixNano()
	case targetPinned:
		a, b = s.Metadata.PinnedAt.UnixNano(), best.Metadata.PinnedAt.UnixNano()
	case targetArchived:
		a, b = s.Metadata.ArchivedAt.UnixNano(), best.Metadata.ArchivedAt.UnixNano()
	}
	if a != b {
		return a > b
	}
	return idLess(best.ID, s.ID)
}

// idLess orders IDs by the time they stand for (longer is later).
func idLess(a, b conversation.ID) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// shortIDMin is the fewest digits jp conversation ls shows of an ID.
const shortIDMin = 4

// ShortIDs gives every conversation visible from loc the shortest prefix
// Resolve takes for it alone (archived ones count, as Resolve matches
// them too).
func (c *Conversations) ShortIDs(ctx context.Context, loc workspace.Location) (map[conversation.ID]string, error) {
	list, err := c.store.List(ctx, loc)
	if err != nil {
		return nil, err
	}
	ids := make([]conversation.ID, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return conversation.ShortIDs(ids, shortIDMin), nil
}
