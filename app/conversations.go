package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// LockWait is how long a command waits for another jp process to release a
// conversation before it reports the conversation as locked.
const LockWait = 1500 * time.Millisecond

// Conversations is the use case behind jp conversation (alias c).
type Conversations struct {
	store  ports.ConversationStore
	locker ports.Locker
	clock  ports.Clock
}

// NewConversations builds the use case.
func NewConversations(store ports.ConversationStore, locker ports.Locker, clock ports.Clock) *Conversations {
	return &Conversations{store: store, locker: locker, clock: clock}
}

// ListOptions filters jp conversation ls.
type ListOptions struct {
	// Archived lists only archived conversations; otherwise they are hidden.
	Archived bool
	// All lists archived and unarchived ones.
	All bool
	// Labels, when set, list only conversations whose labels match every
	// selector (--label KEY or KEY=VALUE, as the Rust jp filters).
	Labels []conversation.LabelSelector
	// Local lists only the conversations kept on this machine alone.
	Local bool
	// Sort orders by a field (one of SortFields), ascending unless
	// Descending; "" keeps the default order (pinned first, then the most
	// recently active first).
	Sort       string
	Descending bool
}

// SortFields are the fields jp c ls --sort takes, the Rust jp's.
var SortFields = []string{"id", "created", "activity", "expires", "messages", "local"}

// CheckSort returns a usage error unless field is "" or one of SortFields.
func CheckSort(field string) error {
	if field == "" || slices.Contains(SortFields, field) {
		return nil
	}
	return &UsageError{Msg: fmt.Sprintf("--sort %q is not a field: use one of %s", field, strings.Join(SortFields, ", "))}
}

// List returns the conversations visible in loc: pinned first, then most
// recently active first. Those whose checkout copy cannot be read
// (Summary.Unreadable) are in it whatever the filter: see Unreadable.
func (c *Conversations) List(ctx context.Context, loc workspace.Location, opts ListOptions) ([]conversation.Summary, error) {
	all, err := c.store.List(ctx, loc)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, s := range all {
		if s.Unreadable != nil || (opts.All || s.Metadata.Archived() == opts.Archived) && (len(opts.Labels) == 0 || conversation.MatchLabels(s.Metadata.LabelMap(), opts.Labels)) && (!opts.Local || s.Local) {
			out = append(out, s)
		}
	}
	if err := CheckSort(opts.Sort); err != nil {
		return nil, err
	}
	SortSummaries(out)
	if opts.Sort != "" || opts.Descending {
		sortBy(out, cmp.Or(opts.Sort, "activity"), opts.Descending)
	}
	return out, nil
}

// sortBy orders ss by field, ascending unless desc, pinned conversations
// first; ties keep their default order.
func sortBy(ss []conversation.Summary, field string, desc bool) {
	key := func(s conversation.Summary) (int64, string) {
		switch field {
		case "id":
			return 0, string(s.ID)
		case "created":
			return s.Metadata.CreatedAt.UnixNano(), ""
		case "messages":
			return int64(s.Metadata.EventsCount), ""
		case "expires":
			return 0, expiresAt(s.Metadata)
		case "local":
			if s.Local {
				return 1, ""
			}
			return 0, ""
		}
		return s.Metadata.LastActivatedAt.UnixNano(), ""
	}
	sort.SliceStable(ss, func(i, j int) bool {
		if ss[i].Metadata.Pinned() != ss[j].Metadata.Pinned() {
			return ss[i].Metadata.Pinned()
		}
		ai, as := key(ss[i])
		bi, bs := key(ss[j])
		c := cmp.Or(cmp.Compare(ai, bi), strings.Compare(as, bs))
		if desc {
			return c > 0
		}
		return c < 0
	})
}

// expiresAt is a conversation's expiry as the Rust jp records it
// (expires_at, kept in Extra), normalised so that strings compare as
// times; "~" (after every time) when it has none.
func expiresAt(m conversation.Metadata) string {
	var raw string
	if err := json.Unmarshal(m.Extra["expires_at"], &raw); err == nil {
		if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
			return t.UTC().Format("2006-01-02T15:04:05.000000000")
		}
	}
	return "~"
}

// Unreadable splits a listing into the conversations that can be shown and
// those whose checkout copy could not be read, and returns one line for
// each of the latter that says so and what to do.
func Unreadable(list []conversation.Summary) (readable []conversation.Summary, lines []string) {
	readable = list[:0:0]
	for _, s := range list {
		if s.Unreadable == nil {
			readable = append(readable, s)
			continue
		}
		lines = append(lines, fmt.Sprintf("conversation %s is left out: %v", s.ID, s.Unreadable))
	}
	return readable, lines
}

// SortSummaries orders pinned conversations first, then by last activity,
// newest first, then by ID.
func SortSummaries(ss []conversation.Summary) {
	sort.SliceStable(ss, func(i, j int) bool {
		a, b := ss[i].Metadata, ss[j].Metadata
		if a.Pinned() != b.Pinned() {
			return a.Pinned()
		}
		if !a.LastActivatedAt.Equal(b.LastActivatedAt) {
			return a.LastActivatedAt.After(b.LastActivatedAt)
		}
		return ss[i].ID > ss[j].ID
	})
}

// ParseID turns a user-given conversation ID into an ID, with a message
// that says what to do.
func ParseID(s string) (conversation.ID, error) {
	id, err := conversation.ParseID(s)
	if err != nil {
		return "", &UserError{Msg: fmt.Sprintf("%q is not a conversation ID (IDs are digits, e.g. 17127583920): list them with jp conversation ls", s), Err: err}
	}
	return id, nil
}

// Show returns a conversation's summary and events.
func (c *Conversations) Show(ctx context.Context, loc workspace.Location, id conversation.ID) (conversation.Summary, []conversation.Event, error) {
	s, err := c.Get(ctx, loc, id)
	if err != nil {
		return conversation.Summary{}, nil, err
	}
	evs, err := c.store.Events(ctx, loc, id)
	if err != nil {
		return conversation.Summary{}, nil, err
	}
	return s, evs, nil
}

// Get returns a conversation's summary (its metadata) without reading its
// events.
func (c *Conversations) Get(ctx context.Context, loc workspace.Location, id conversation.ID) (conversation.Summary, error) {
	s, err := c.store.Get(ctx, loc, id)
	if err != nil {
		return conversation.Summary{}, userNotFound(err)
	}
	return s, nil
}

// ShowTurn returns a conversation's summary, the events of its turn n (1
// is the first) or, with last, of its last turn, and how many turns it
// has. The events are read as they stream from the store and only that
// turn's are kept: a long conversation is never held whole.
func (c *Conversations) ShowTurn(ctx context.Context, loc workspace.Location, id conversation.ID, n int, last bool) (conversation.Summary, []conversation.Event, int, error) {
	var sum conversation.Summary
	var keep []conversation.Event
	turns := 0
	head := func(s conversation.Summary) error { sum = s; return nil }
	each := func(e conversation.Event) error {
		if e.Type == conversation.EventTypeTurnStart || turns == 0 { // as Turns splits them
			turns++
			if last {
				keep = nil
			}
		}
		if last || turns == n {
			keep = append(keep, e)
		}
		return nil
	}
	if err := c.ShowEach(ctx, loc, id, head, each); err != nil {
		return sum, nil, 0, err
	}
	return sum, keep, turns, nil
}

// ShowEach calls head with a conversation's summary, then each with its
// events in order, as the store reads them: a long conversation is shown
// as it is read, never held in memory whole.
func (c *Conversations) ShowEach(ctx context.Context, loc workspace.Location, id conversation.ID, head func(conversation.Summary) error, each func(conversation.Event) error) error {
	s, err := c.store.Get(ctx, loc, id)
	if err != nil {
		return userNotFound(err)
	}
	if err := head(s); err != nil {
		return err
	}
	return c.store.ScanEvents(ctx, loc, id, each)
}

// CountTurns counts a conversation's turns as Turns splits them (each
// starts at a turn_start), reading it without decoding its messages when
// the store can (headerScan): what jp conversation print --last needs
// before it prints the first of them.
func (c *Conversations) CountTurns(ctx context.Context, loc workspace.Location, id conversation.ID) (int, error) {
	n := 0
	err := headerScan(c.store)(ctx, loc, id, func(e conversation.Event) error {
		if e.Type == conversation.EventTypeTurnStart || n == 0 {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, userNotFound(err)
	}
	return n, nil
}

// Remove deletes a conversation, holding its lock.
func (c *Conversations) Remove(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	return c.locked(ctx, loc, id, func() error { return c.store.Remove(ctx, loc, id) })
}

// SetTitle changes a conversation's title.
func (c *Conversations) SetTitle(ctx context.Context, loc workspace.Location, id conversation.ID, title string) error {
	title, err := conversation.CheckTitle(title, false)
	if err != nil {
		return &UserError{Msg: err.Error(), Err: err}
	}
	return c.update(ctx, loc, id, func(m *conversation.Metadata) { m.Title = title })
}

// SetArchived archives or unarchives a conversation.
func (c *Conversations) SetArchived(ctx context.Context, loc workspace.Location, id conversation.ID, archived bool) error {
	return c.setStamp(ctx, loc, id, archived, func(m *conversation.Metadata) **time.Time { return &m.ArchivedAt })
}

// SetPinned pins or unpins a conversation.
func (c *Conversations) SetPinned(ctx context.Context, loc workspace.Location, id conversation.ID, pinned bool) error {
	return c.setStamp(ctx, loc, id, pinned, func(m *conversation.Metadata) **time.Time { return &m.PinnedAt })
}

// setStamp sets the time field of a conversation's metadata to now when
// on (one already set keeps its time), or clears it.
func (c *Conversations) setStamp(ctx context.Context, loc workspace.Location, id conversation.ID, on bool, field func(*conversation.Metadata) **time.Time) error {
	now := c.clock.Now().UTC()
	return c.update(ctx, loc, id, func(m *conversation.Metadata) {
		at := field(m)
		if !on {
			*at = nil
		} else if *at == nil {
			*at = &now
		}
	})
}

func (c *Conversations) update(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(*conversation.Metadata)) error {
	return c.locked(ctx, loc, id, func() error {
		return c.store.UpdateMetadata(ctx, loc, id, func(m *conversation.Metadata) error { fn(m); return nil })
	})
}

func (c *Conversations) locked(ctx context.Context, loc workspace.Location, id conversation.ID, fn func() error) error {
	if _, err := c.store.Get(ctx, loc, id); err != nil {
		return userNotFound(err)
	}
	release, err := c.locker.Lock(ctx, loc, id, LockWait)
	if err != nil {
		return LockError(err)
	}
	defer func() { _ = release() }()
	return userNotFound(fn())
}

func userNotFound(err error) error {
	var nf *ports.NotFoundError
	if errors.As(err, &nf) {
		return &UserError{Msg: nf.Error(), Err: err}
	}
	return err
}

// LockError is err with a lock another process holds made a *UserError
// naming the holder; other errors are returned as they are.
func LockError(err error) error {
	var le *ports.LockedError
	if errors.As(err, &le) {
		return &UserError{Msg: le.Error(), Err: err}
	}
	return err
}

// Paths returns the paths jp c path prints for conversation id: its
// directory, or with files non-empty, those files in it (in that order).
func (c *Conversations) Paths(ctx context.Context, loc workspace.Location, id conversation.ID, files ...string) ([]string, error) {
	d, ok := c.store.(ports.ConversationDirs)
	if !ok {
		return nil, &UserError{Msg: "this conversation store keeps no files, so conversations have no path"}
	}
	dir, err := d.ConversationDir(ctx, loc, id)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return []string{dir}, nil
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Join(dir, f)
	}
	return out, nil
}
