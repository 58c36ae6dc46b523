package pluginhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
)

// readEvents answers read_events: every event, or one page of them
// (plugin.ReadEvents.Paged). Either way the events are read as they
// stream from the store (ports.ConversationStore.ScanEvents) and each is
// sent as stored; a page stops the scan once it is full, so reading the
// first page of a long conversation never reads the rest of it.
func (s *session) readEvents(ctx context.Context, c *checkout, req plugin.ReadEvents) (plugin.Message, error) {
	id := conversation.ID(req.Conversation)
	sum, err := s.h.store.Get(ctx, c.loc, id)
	if err != nil {
		return nil, err
	}
	p := newEventPage(req, s.h.events.EncodeEvent)
	err = s.h.store.ScanEvents(ctx, c.loc, id, p.add)
	if errors.Is(err, errTooLong) {
		return nil, fmt.Errorf("conversation %s: %w", id, err)
	}
	if err != nil && !errors.Is(err, errPageFull) {
		return nil, err
	}
	out := plugin.Events{ID: req.ID, Conversation: req.Conversation, Data: p.data, LastRoot: sum.LastRoot}
	if req.Paged() {
		next := p.nextOffset()
		out.NextOffset, out.More = &next, p.more
	}
	return out, nil
}

// errPageFull stops the scan of a page that is full.
var errPageFull = errors.New("read_events page full")

// maxWhole bounds the events of an answer with every event: past it the
// answer's line would be longer than a plugin reads (plugin.MaxLine; the
// SDK drops its connection to jp on such a line), so jp answers an
// error instead, and the plugin asks for pages.
const maxWhole = plugin.MaxLine - 64<<10

// errTooLong refuses an answer with every event past maxWhole.
var errTooLong = fmt.Errorf("its events are more than %d MiB, more than one message carries: %s", plugin.MaxLine>>20, plugin.AskForPages)

// eventPage gathers the events of one read_events answer from a scan.
type eventPage struct {
	encode func(conversation.Event) (json.RawMessage, error)
	paged  bool
	from   int // index of the first event wanted
	limit  int // events wanted at most (0: no bound)
	max    int // encoded bytes at most (0: no bound)
	n      int // stored events scanned
	bytes  int // encoded bytes in data
	data   []json.RawMessage
	next   int  // offset of the next page
	more   bool // the page stopped before the conversation's end
}

func newEventPage(req plugin.ReadEvents, encode func(conversation.Event) (json.RawMessage, error)) *eventPage {
	p := &eventPage{encode: encode, data: []json.RawMessage{}}
	if req.Paged() {
		p.paged, p.from, p.limit, p.max = true, req.From(), req.Limit, plugin.PageBytes
	}
	return p
}

// add takes the scan's next event: it skips events before the page,
// keeps those that fit, and ends the scan (errPageFull) at the first that
// does not. The block in flight (plugin.PartialIDPrefix) is no stored
// event: it comes last in a scan, is not counted in the offsets, and is
// sent only on the page that reaches the conversation's end.
func (p *eventPage) add(e conversation.Event) error {
	partial := strings.HasPrefix(e.ID, plugin.PartialIDPrefix)
	if !partial {
		defer func() { p.n++ }()
	}
	if p.n < p.from {
		return nil
	}
	if p.paged && p.limit > 0 && len(p.data) >= p.limit {
		p.more = true
		return errPageFull
	}
	b, err := p.encode(e)
	if err != nil {
		return err
	}
	size := wireSize(b) + 1 // and its comma
	if !p.paged && p.bytes+size > maxWhole {
		return errTooLong
	}
	if p.max > 0 && len(p.data) > 0 && p.bytes+size > p.max {
		p.more = true
		return errPageFull
	}
	p.data = append(p.data, b)
	p.bytes += size
	if !partial {
		p.next = p.n + 1
	}
	return nil
}

// nextOffset is where the next page starts: after the last stored event
// sent when the page stopped early, else the conversation's stored count
// (below the request's offset when the conversation holds fewer events).
func (p *eventPage) nextOffset() int {
	if p.more {
		return p.next
	}
	return p.n
}

// wireSize is the size of an event in the answer's line: the protocol's
// JSON encoder writes <, > and & as \u003c (6 bytes for 1), and U+2028
// and U+2029 as \u2028 (6 for 3), so an event of code can take up to six
// times its stored size.
func wireSize(b []byte) int {
	n := len(b)
	for _, c := range b {
		if c == '<' || c == '>' || c == '&' {
			n += 5
		}
	}
	return n + 3*(bytes.Count(b, []byte("\u2028"))+bytes.Count(b, []byte("\u2029")))
}
