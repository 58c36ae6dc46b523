package app

import (
	"context"
	"slices"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/timespec"
	"github.com/jpcli/jp/domain/workspace"
)

// Threshold reads the value of a --from, --until or --inactive-since flag
// as the Rust jp does: a conversation ID (its creation time), a duration
// before now (3w, 30d, 5days), an RFC 3339 time or a YYYY-MM-DD date. An
// empty raw is the zero time (no bound).
func (c *Conversations) Threshold(flag, raw string) (time.Time, error) {
	if raw == "" {
		return time.Time{}, nil
	}
	t, err := timespec.ParseThreshold(raw, c.clock.Now().UTC(), func(s string) (time.Time, bool) {
		id, err := conversation.ParseID(s)
		if err != nil || len(s) != len(conversation.NewID(time.Now())) {
			return time.Time{}, false
		}
		return id.Time(), true
	})
	if err != nil {
		return time.Time{}, &UsageError{Msg: "--" + flag + ": " + err.Error()}
	}
	return t, nil
}

// Range reads the --from, --until and --inactive-since flags (each
// Threshold; "" is no bound) into one filter: the one parser of jp c rm,
// jp c archive, jp c use and jp c fork.
func (c *Conversations) Range(from, until, inactiveSince string) (RangeFilter, error) {
	var f RangeFilter
	for _, b := range []struct {
		flag, raw string
		to        *time.Time
	}{{"from", from, &f.From}, {"until", until, &f.Until}, {"inactive-since", inactiveSince, &f.InactiveSince}} {
		t, err := c.Threshold(b.flag, b.raw)
		if err != nil {
			return RangeFilter{}, err
		}
		*b.to = t
	}
	return f, nil
}

// RangeFilter selects conversations for jp c rm and jp c archive by time,
// as the Rust jp's --from, --until and --inactive-since: zero times are
// open bounds, and every bound given must hold.
type RangeFilter struct {
	// From and Until bound the creation time: [From, Until).
	From, Until time.Time
	// InactiveSince keeps those last active before it.
	InactiveSince time.Time
}

// Set reports whether any bound is given.
func (f RangeFilter) Set() bool {
	return !f.From.IsZero() || !f.Until.IsZero() || !f.InactiveSince.IsZero()
}

// Match reports whether the conversation is within the bounds.
func (f RangeFilter) Match(s conversation.Summary) bool {
	created := s.Metadata.CreatedAt
	if created.IsZero() {
		created = s.ID.Time()
	}
	return (f.From.IsZero() || !created.Before(f.From)) &&
		(f.Until.IsZero() || created.Before(f.Until)) &&
		(f.InactiveSince.IsZero() || s.Metadata.LastActivatedAt.Before(f.InactiveSince))
}

// Within returns the unarchived conversations within the bounds the
// --from, --until and --inactive-since flags give (see Range), oldest
// first: what jp c rm, jp c archive and jp c use select by time.
func (c *Conversations) Within(ctx context.Context, loc workspace.Location, from, until, inactiveSince string) ([]conversation.Summary, error) {
	f, err := c.Range(from, until, inactiveSince)
	if err != nil {
		return nil, err
	}
	return c.InRange(ctx, loc, f)
}

// InRange returns the unarchived conversations within f, oldest first.
func (c *Conversations) InRange(ctx context.Context, loc workspace.Location, f RangeFilter) ([]conversation.Summary, error) {
	list, err := c.store.List(ctx, loc)
	if err != nil {
		return nil, err
	}
	var out []conversation.Summary
	for _, s := range list {
		if s.Unreadable == nil && !s.Metadata.Archived() && f.Match(s) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b conversation.Summary) int {
		if idLess(a.ID, b.ID) {
			return -1
		}
		if idLess(b.ID, a.ID) {
			return 1
		}
		return 0
	})
	return out, nil
}
