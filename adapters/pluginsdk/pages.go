package pluginsdk

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/jpcli/jp/domain/plugin"
)

// ReadEventsPage returns a page of a conversation's events (single
// scope). See Checkout.ReadEventsPage.
func (c *Client) ReadEventsPage(ctx context.Context, conversation string, offset, limit int) (plugin.Events, error) {
	return c.here().ReadEventsPage(ctx, conversation, offset, limit)
}

// EventPages reads a conversation page by page (single scope). See
// Checkout.EventPages.
func (c *Client) EventPages(ctx context.Context, conversation string, limit int) iter.Seq2[plugin.Events, error] {
	return c.here().EventPages(ctx, conversation, limit)
}

// ReadEventsPage returns the stored events of a conversation from index
// offset on: at most limit of them (0: as many as fit), and never more
// than plugin.PageBytes of them encoded. NextOffset (always set) is the
// offset of the next page, and More says the page stopped before the
// conversation's end. While an answer streams, the last page ends with
// the answer so far (an event whose ID starts with
// plugin.PartialIDPrefix), which NextOffset does not count. A NextOffset
// below offset says the conversation holds only that many events now.
func (w Checkout) ReadEventsPage(ctx context.Context, conversation string, offset, limit int) (plugin.Events, error) {
	if offset < 0 || limit < 0 {
		return plugin.Events{}, fmt.Errorf("read a page of conversation %s: offset (%d) and limit (%d) must be 0 or more", conversation, offset, limit)
	}
	resp, err := request[plugin.Events](ctx, w.c, func(id string) plugin.Message {
		return plugin.ReadEvents{ID: id, Workspace: w.ref, Conversation: conversation, Offset: &offset, Limit: limit}
	})
	if err == nil && resp.NextOffset == nil {
		resp = pageOfWhole(resp, offset, limit)
	}
	return resp, err
}

// pageOfWhole cuts the page asked for out of the answer of a jp that
// does not page (it sent every event, and no next_offset).
func pageOfWhole(all plugin.Events, offset, limit int) plugin.Events {
	data, stored := all.Data, len(all.Data)
	var last struct {
		ID string `json:"id"`
	}
	if stored > 0 && json.Unmarshal(data[stored-1], &last) == nil && strings.HasPrefix(last.ID, plugin.PartialIDPrefix) {
		stored--
	}
	next := stored
	switch {
	case offset > stored:
		data = nil
	case limit > 0 && offset+limit < len(data):
		data, next, all.More = data[offset:offset+limit], min(offset+limit, stored), true
	default:
		data = data[offset:]
	}
	all.Data, all.NextOffset = data, &next
	return all
}

// EventPages reads a conversation from its first event to its last, a
// page (ReadEventsPage with limit) at a time, yielding each page; it
// stops at the first error, which it yields. A conversation that lost
// events between two pages (rewound elsewhere) is an error: read it
// again. Events stored while it reads are read too.
func (w Checkout) EventPages(ctx context.Context, conversation string, limit int) iter.Seq2[plugin.Events, error] {
	return func(yield func(plugin.Events, error) bool) {
		offset := 0
		for {
			page, err := w.ReadEventsPage(ctx, conversation, offset, limit)
			if err == nil && *page.NextOffset < offset {
				err = fmt.Errorf("conversation %s changed while it was read: it holds %d events now, fewer than the %d read; read it again", conversation, *page.NextOffset, offset)
			}
			if err == nil && page.More && *page.NextOffset == offset {
				err = fmt.Errorf("conversation %s: jp answered a page of no events with more to come", conversation)
			}
			if err != nil {
				yield(plugin.Events{}, err)
				return
			}
			if !yield(page, nil) || !page.More {
				return
			}
			offset = *page.NextOffset
		}
	}
}

// readAllPages is ReadEvents of a conversation too long for one answer:
// every page, together, with the last page's record.
func (w Checkout) readAllPages(ctx context.Context, conversation string) (plugin.Events, error) {
	var all plugin.Events
	for page, err := range w.EventPages(ctx, conversation, 0) {
		if err != nil {
			return plugin.Events{}, err
		}
		data := append(all.Data, page.Data...)
		all, all.Data = page, data
	}
	all.NextOffset, all.More = nil, false
	return all, nil
}
