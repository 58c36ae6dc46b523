package app

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Turns splits a conversation's events into turns: each starts at a
// turn_start and runs to the next one.
func Turns(evs []conversation.Event) [][]conversation.Event {
	var out [][]conversation.Event
	for i, e := range evs {
		if e.Type == conversation.EventTypeTurnStart || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], evs[i])
	}
	return out
}

// Fork copies the conversation id into a new one: all its complete turns,
// or the first upTo of them (upTo > 0). The copy gets the original's title
// and labels and becomes the checkout's active conversation, once it is
// whole: the store builds it aside from the events as they are read (a
// turn at a time in memory), so a fork that fails or is killed leaves no
// conversation and the active one unchanged.
func (c *Conversations) Fork(ctx context.Context, loc workspace.Location, id conversation.ID, upTo int) (conversation.ID, error) {
	return c.ForkWith(ctx, loc, id, ForkOptions{UpTo: upTo})
}

// ForkOptions selects what jp conversation fork copies, with the Rust
// jp's flags. Turn selectors count complete turns only.
type ForkOptions struct {
	// UpTo copies the first UpTo turns, and fails when there are fewer
	// (this jp's --turn N); 0 copies all.
	UpTo int
	// First and Last keep the first First and the last Last turns (both:
	// those at each end, dropping the middle); 0 is not given. Fewer
	// turns than asked keeps them all, as in the Rust jp.
	First, Last int
	// From and Until keep the turns started in [From, Until); a zero time
	// leaves that end open.
	From, Until time.Time
	// NoTurns copies no turn: the fork starts empty.
	NoTurns bool
	// Title, when set, is the fork's title instead of the original's.
	Title *string
	// Labels change the labels the fork inherits, in order.
	Labels []conversation.LabelDirective
}

// ForkWith is Fork with the Rust jp's selectors, title and labels.
func (c *Conversations) ForkWith(ctx context.Context, loc workspace.Location, id conversation.ID, o ForkOptions) (conversation.ID, error) {
	if o.UpTo < 0 {
		return "", &UsageError{Msg: "--turn counts from 1"}
	}
	if o.First < 0 || o.Last < 0 {
		return "", &UsageError{Msg: "--first and --last take a number of turns of 0 or more"}
	}
	if o.NoTurns && (o.UpTo > 0 || o.First > 0 || o.Last > 0 || !o.From.IsZero() || !o.Until.IsZero()) {
		return "", &UsageError{Msg: "--no-turns copies no turn, so it cannot be combined with --turn, --first, --last, --from or --until: give one"}
	}
	if o.UpTo > 0 && (o.First > 0 || o.Last > 0) {
		return "", &UsageError{Msg: "--turn and --first/--last both select turns: give one"}
	}
	if o.Title != nil {
		t, err := conversation.CheckTitle(*o.Title, false)
		if err != nil {
			return "", &UserError{Msg: err.Error(), Err: err}
		}
		o.Title = &t
	}
	nid, err := forkWith(ctx, c.store, loc, id, o)
	if err != nil {
		return "", err
	}
	return nid, c.store.SetActive(ctx, loc, nid)
}

// forkWith copies the turns o selects of conversation id into a new
// conversation, with the original's title and labels as o changes them.
// o is valid (ForkWith checks it).
func forkWith(ctx context.Context, store ports.ConversationStore, loc workspace.Location, id conversation.ID, o ForkOptions) (conversation.ID, error) {
	s, err := store.Get(ctx, loc, id)
	if err != nil {
		return "", err
	}
	labels := s.Metadata.LabelMap()
	if labels == nil {
		labels = map[string]string{}
	}
	conversation.ApplyLabels(labels, o.Labels)
	nc := ports.NewConversation{Title: s.Metadata.Title, Local: s.Local, Labels: labels}
	if o.Title != nil {
		nc.Title = *o.Title
	}
	sel := turnSelector{ForkOptions: o}
	if o.Last > 0 {
		// The last turns are known once the turns are counted: a first
		// pass counts them, holding none.
		if err := forkTurns(ctx, store, loc, id, &sel, func(conversation.Event) error { return nil }); err != nil {
			return "", err
		}
		sel.total, sel.seen = sel.seen, 0
		sel.counted = true
	}
	return store.CreateFrom(ctx, loc, nc, func(add func(conversation.Event) error) error {
		if o.NoTurns {
			return nil
		}
		return forkTurns(ctx, store, loc, id, &sel, add)
	})
}

// turnSelector says which complete turns a fork copies.
type turnSelector struct {
	ForkOptions
	seen    int  // complete turns in the time range so far
	total   int  // complete turns in the time range (counted first for Last)
	counted bool // total is known
}

// inRange reports whether a turn started at t is within From and Until.
func (s *turnSelector) inRange(t time.Time) bool {
	return (s.From.IsZero() || !t.Before(s.From)) && (s.Until.IsZero() || t.Before(s.Until))
}

// keep reports whether the i-th (0-based) complete turn in range is
// copied, and done whether no later turn can be.
func (s *turnSelector) keep(i int) (keep, done bool) {
	switch {
	case s.UpTo > 0:
		return i < s.UpTo, i+1 >= s.UpTo
	case s.First == 0 && s.Last == 0:
		return true, false
	case !s.counted && s.Last > 0:
		return false, false // the counting pass
	case s.Last > 0 && i >= s.total-s.Last:
		return true, false
	default:
		return i < s.First, s.Last == 0 && i+1 >= s.First
	}
}

// subset reports whether the selector may leave turns out.
func (s *turnSelector) subset() bool {
	return s.UpTo > 0 || s.First > 0 || s.Last > 0 || !s.From.IsZero() || !s.Until.IsZero()
}

// errForked stops the scan of a fork once it has the turns it copies.
var errForked = errors.New("forked")

// forkTurns passes to add the events of id's complete turns that sel
// keeps, holding one turn at a time. A turn is what Turns makes of the
// events; an interrupted turn (no turn_end last) is not copied.
func forkTurns(ctx context.Context, store ports.ConversationStore, loc workspace.Location, id conversation.ID, sel *turnSelector, add func(conversation.Event) error) error {
	var turn []conversation.Event
	complete := 0 // complete turns, in range or not
	done := false
	flush := func() error {
		t := turn
		// The next turn reuses the slice (add takes events by value), its
		// events cleared so that none keeps a chunk of the file alive.
		defer func() { clear(t); turn = t[:0] }()
		// Events of other types (compaction overlays, the Rust jp's
		// config_delta) belong to the conversation, not to the turn they
		// follow: they neither make a turn incomplete nor go with one.
		last := len(t) - 1
		for last >= 0 && t[last].Type == conversation.EventTypeForeign {
			last--
		}
		if last < 0 || t[last].Type != conversation.EventTypeTurnEnd {
			for _, e := range t {
				if e.Type == conversation.EventTypeForeign {
					if err := add(e); err != nil {
						return err
					}
				}
			}
			return nil // an interrupted turn has no end: not copied
		}
		complete++
		keep := false
		if sel.inRange(t[0].Timestamp) {
			i := sel.seen
			sel.seen++
			keep, done = sel.keep(i)
		}
		for _, e := range t {
			if !keep && e.Kind != conversation.KindConfigDelta {
				continue // a turn left out keeps only the configuration changes
			}
			if keep && sel.subset() && (e.Kind == conversation.KindCompaction || e.Kind == conversation.KindCompactionReset) {
				continue // its turn numbers would name other turns in the copy
			}
			if err := add(e); err != nil {
				return err
			}
		}
		return nil
	}
	err := headerScan(store)(ctx, loc, id, func(e conversation.Event) error {
		if e.Type == conversation.EventTypeTurnStart && len(turn) > 0 {
			if err := flush(); err != nil {
				return err
			}
			if done {
				return errForked
			}
		}
		turn = append(turn, e)
		return nil
	})
	if errors.Is(err, errForked) {
		return nil
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	if sel.UpTo > complete {
		return &UserError{Msg: fmt.Sprintf("conversation %s has %d complete turns: fork --turn 1 to %d, or without --turn for all", id, complete, complete)}
	}
	return nil
}

// headerScan is how a fork reads the conversation it copies (and
// CountTurns counts it): without its events' big values when the store
// can (ports.EventHeaderScanner), since the store's CreateFrom copies
// them as they are stored.
func headerScan(store ports.ConversationStore) func(context.Context, workspace.Location, conversation.ID, func(conversation.Event) error) error {
	if hs, ok := store.(ports.EventHeaderScanner); ok {
		return hs.ScanEventHeaders
	}
	return store.ScanEvents
}

// Label applies label changes (set, remove, remove all) in order and
// says what they did.
func (c *Conversations) Label(ctx context.Context, loc workspace.Location, id conversation.ID, ds []conversation.LabelDirective) (conversation.LabelsApplied, error) {
	var out conversation.LabelsApplied
	err := c.update(ctx, loc, id, func(m *conversation.Metadata) {
		lm := m.LabelMap()
		if lm == nil {
			lm = map[string]string{}
		}
		out = conversation.ApplyLabels(lm, ds)
		m.SetLabelMap(lm)
	})
	return out, err
}

// Edit is what jp conversation edit changes: nil fields stay as they are.
type Edit struct {
	Title  *string
	Pinned *bool
	// Labels replace the labels: each key=value or a bare key.
	Labels *[]string
	// NoTitle clears the title.
	NoTitle bool
	// ExpiresIn sets the expiry (the Rust jp's expires_at) this long from
	// now; NoExpiry removes it; ToggleExpiry removes it when set, else
	// makes it now (expire once no longer active), as the Rust jp's --tmp
	// alone does.
	ExpiresIn              *time.Duration
	NoExpiry, ToggleExpiry bool
}

// Apply changes the conversation's metadata as e says.
func (c *Conversations) Apply(ctx context.Context, loc workspace.Location, id conversation.ID, e Edit) error {
	if e.Title != nil {
		// The same rule as jp conversation title: one line, not empty, at
		// most conversation.MaxTitleChars.
		t, err := conversation.CheckTitle(*e.Title, false)
		if err != nil {
			return &UserError{Msg: err.Error(), Err: err}
		}
		e.Title = &t
	}
	var labels map[string]string
	if e.Labels != nil {
		s, err := c.Get(ctx, loc, id)
		if err != nil {
			return err
		}
		had := s.Metadata.LabelMap()
		labels = map[string]string{}
		for _, l := range *e.Labels {
			k, v, _ := strings.Cut(l, "=")
			if _, err := conversation.ParseLabelSet(l); err != nil {
				if _, old := had[k]; !old || v != had[k] {
					// A label written by an older version may stay as it is.
					return &UserError{Msg: err.Error(), Err: err}
				}
			}
			labels[k] = v
		}
	}
	now := c.clock.Now().UTC()
	return c.update(ctx, loc, id, func(m *conversation.Metadata) {
		if e.Title != nil {
			m.Title = *e.Title
		}
		if e.Pinned != nil {
			switch {
			case !*e.Pinned:
				m.PinnedAt = nil
			case m.PinnedAt == nil:
				m.PinnedAt = &now
			}
		}
		if e.Labels != nil {
			m.SetLabelMap(labels)
		}
		if e.NoTitle {
			m.Title = ""
		}
		_, has := m.ExpiresAt()
		switch {
		case e.ExpiresIn != nil:
			t := now.Add(*e.ExpiresIn)
			m.SetExpiresAt(&t)
		case e.NoExpiry, e.ToggleExpiry && has:
			m.SetExpiresAt(nil)
		case e.ToggleExpiry:
			m.SetExpiresAt(&now)
		}
	})
}

// GrepMatch is one line of a conversation that matched.
type GrepMatch struct {
	Workspace    workspace.ID    `json:"workspace"`
	Conversation conversation.ID `json:"conversation"`
	Title        string          `json:"title"`
	// Turn is the 1-based turn of the line; 0 for the title.
	Turn int `json:"turn"`
	// Who is "title", "you", "assistant", "reasoning", "tool_call" or
	// "tool_result".
	Who  string `json:"who"`
	Line string `json:"line"`
	// Context is true for a line shown only because it is within
	// --context lines of a match.
	Context bool `json:"context,omitempty"`
}

// GrepPattern is what jp c grep searches for, as the Rust jp reads it.
type GrepPattern struct {
	// Text is the pattern (the Rust jp joins several words with spaces).
	Text string
	// Regex reads Text as a Go regular expression; otherwise it is
	// literal text.
	Regex bool
	// IgnoreCase and CaseSensitive override smart case: without either,
	// the match ignores case unless Text has an upper-case letter.
	IgnoreCase, CaseSensitive bool
}

// CompileGrep compiles a grep pattern, with one line saying what is wrong
// when it is not valid.
func CompileGrep(p GrepPattern) (*regexp.Regexp, error) {
	if p.Text == "" {
		return nil, &UsageError{Msg: "the grep pattern is empty: give the text to search for"}
	}
	if p.IgnoreCase && p.CaseSensitive {
		return nil, &UsageError{Msg: "--ignore-case and --case-sensitive contradict each other: give one"}
	}
	pattern := p.Text
	if !p.Regex {
		pattern = regexp.QuoteMeta(pattern)
	}
	fold := p.IgnoreCase || !p.CaseSensitive && !strings.ContainsFunc(p.Text, unicode.IsUpper)
	if fold {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[:i] // regexp repeats the whole pattern at the end
		}
		return nil, &UsageError{Msg: fmt.Sprintf("invalid pattern %q: %s (Go regular expression syntax; without -r the pattern is literal text)", p.Text, strings.TrimPrefix(msg, "error parsing regexp: "))}
	}
	return re, nil
}

// grepEvents gives add the text of each of conversation id's events
// with its turn's number (1 is the first, counted as Turns splits them)
// as the store reads them: a long conversation is never held whole.
func grepEvents(ctx context.Context, store ports.ConversationStore, loc workspace.Location, id conversation.ID, add func(turn int, who, text string)) error {
	turn := 0
	return store.ScanEvents(ctx, loc, id, func(e conversation.Event) error {
		if e.Type == conversation.EventTypeTurnStart || turn == 0 {
			turn++
		}
		switch e.Type {
		case conversation.EventTypeChatRequest:
			add(turn, "you", e.Content)
		case conversation.EventTypeChatResponse:
			if e.Reasoning != "" {
				add(turn, "reasoning", e.Reasoning)
			} else {
				add(turn, "assistant", e.Message)
			}
		case conversation.EventTypeToolCallRequest:
			add(turn, "tool_call", e.Name+" "+string(e.Arguments))
		case conversation.EventTypeToolCallResponse:
			add(turn, "tool_result", e.Content)
		}
		return nil
	})
}

// Grep returns the lines of the conversations visible from each location
// (titles, messages, answers, reasoning, tool calls and results) that match
// re, newest conversation first, each with up to around lines of its
// text before and after it. skipped has one line for each
// conversation left out because its checkout copy could not be read.
func (c *Conversations) Grep(ctx context.Context, locs []workspace.Location, re *regexp.Regexp, around int) (out []GrepMatch, skipped []string, err error) {
	for _, loc := range locs {
		list, err := c.store.List(ctx, loc)
		if err != nil {
			return nil, nil, err
		}
		list, bad := Unreadable(list)
		skipped = append(skipped, bad...)
		SortSummaries(list)
		for _, s := range list {
			m := GrepMatch{Workspace: loc.ID, Conversation: s.ID, Title: s.Metadata.Title}
			var found []GrepMatch // kept when the whole conversation was read
			add := func(turn int, who, text string) {
				lines := strings.Split(text, "\n")
				next := 0 // the first line not yet added
				for i, line := range lines {
					if !re.MatchString(line) {
						continue
					}
					for j := max(next, i-around); j <= min(len(lines)-1, i+around); j++ {
						// A copy: the event's text shares the buffer it was read in.
						m.Turn, m.Who, m.Line = turn, who, strings.Clone(lines[j])
						m.Context = j != i && !re.MatchString(lines[j])
						found = append(found, m)
						next = j + 1
					}
				}
			}
			add(0, "title", s.Metadata.Title)
			err := grepEvents(ctx, c.store, loc, s.ID, add)
			if err != nil && s.Storage == conversation.StorageWorkspaceOnly && errors.Is(err, ports.ErrCorrupt) {
				skipped = append(skipped, fmt.Sprintf("conversation %s is left out: %v", s.ID, err))
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			out = append(out, found...)
		}
	}
	return out, skipped, nil
}
