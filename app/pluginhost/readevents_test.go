package pluginhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
)

// pageOf runs a page of req over events with the given IDs (each encoded
// as {"id":ID} padded to size bytes), as a store's scan would, and
// returns the IDs sent, the next offset and more.
func pageOf(t *testing.T, req plugin.ReadEvents, ids []string, size int) ([]string, int, bool) {
	t.Helper()
	encode := func(e conversation.Event) (json.RawMessage, error) {
		b := fmt.Appendf(nil, `{"id":%q}`, e.ID)
		if len(b) < size {
			b = append(b[:len(b)-1], fmt.Appendf(nil, `,"p":%q}`, strings.Repeat("x", size-len(b)-7))...)
		}
		return b, nil
	}
	p := newEventPage(req, encode)
	for _, id := range ids {
		if err := p.add(conversation.Event{ID: id}); errors.Is(err, errPageFull) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, b := range p.data {
		var e struct{ ID string }
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		got = append(got, e.ID)
	}
	return got, p.nextOffset(), p.more
}

func offset(n int) *int { return &n }

// TestEventPage: a page skips the events before its offset, stops at its
// limit or at plugin.PageBytes (never before its first event), counts
// only stored events in its offsets, and carries the block in flight
// only when it reaches the conversation's end; a request without offset
// and limit gets everything.
func TestEventPage(t *testing.T) {
	t.Parallel()
	five := []string{"e0", "e1", "e2", "e3", "e4"}
	running := append(append([]string{}, five...), plugin.PartialIDPrefix+"ab")
	big := plugin.PageBytes/2 - 100 // two fit in a page, three do not
	for _, tc := range []struct {
		name string
		req  plugin.ReadEvents
		ids  []string
		size int
		want string
		next int
		more bool
	}{
		{"whole", plugin.ReadEvents{}, running, 0, "e0 e1 e2 e3 e4 partial-ab", 5, false},
		{"whole ignores the byte bound", plugin.ReadEvents{}, five, big, "e0 e1 e2 e3 e4", 5, false},
		{"first page", plugin.ReadEvents{Limit: 2}, running, 0, "e0 e1", 2, true},
		{"middle page", plugin.ReadEvents{Offset: offset(2), Limit: 2}, running, 0, "e2 e3", 4, true},
		{"last page ends with the block in flight", plugin.ReadEvents{Offset: offset(4), Limit: 2}, running, 0, "e4 partial-ab", 5, false},
		{"the block in flight does not fit the limit", plugin.ReadEvents{Offset: offset(3), Limit: 2}, running, 0, "e3 e4", 5, true},
		{"only the block in flight", plugin.ReadEvents{Offset: offset(5)}, running, 0, "partial-ab", 5, false},
		{"nothing new", plugin.ReadEvents{Offset: offset(5)}, five, 0, "", 5, false},
		{"past the end", plugin.ReadEvents{Offset: offset(8)}, running, 0, "", 5, false},
		{"offset 0 pages", plugin.ReadEvents{Offset: offset(0)}, five, big, "e0 e1", 2, true},
		{"byte bound before the limit", plugin.ReadEvents{Offset: offset(2), Limit: 3}, five, big, "e2 e3", 4, true},
		{"an event over the bound alone", plugin.ReadEvents{Offset: offset(1)}, five, plugin.PageBytes + 10, "e1", 2, true},
	} {
		got, next, more := pageOf(t, tc.req, tc.ids, tc.size)
		if strings.Join(got, " ") != tc.want || next != tc.next || more != tc.more {
			t.Errorf("%s: page = %q next %d more %v, want %q next %d more %v", tc.name, strings.Join(got, " "), next, more, tc.want, tc.next, tc.more)
		}
	}
}

// TestWholeTooLongForOneLine: an answer with every event that would be a
// line longer than a plugin reads (plugin.MaxLine) is refused with an
// error asking for pages; a page of the same events is sent.
func TestWholeTooLongForOneLine(t *testing.T) {
	t.Parallel()
	ids := []string{"e0", "e1", "e2", "e3"}
	size := plugin.MaxLine / 3
	p := newEventPage(plugin.ReadEvents{}, func(e conversation.Event) (json.RawMessage, error) {
		return make(json.RawMessage, size), nil
	})
	var err error
	for _, id := range ids {
		if err = p.add(conversation.Event{ID: id}); err != nil {
			break
		}
	}
	if !errors.Is(err, errTooLong) || !strings.HasSuffix(err.Error(), plugin.AskForPages) || len(p.data) != 2 {
		t.Fatalf("whole read of %d MiB: %v after %d events, want errTooLong after 2", len(ids)*size>>20, err, len(p.data))
	}
	got, next, more := pageOf(t, plugin.ReadEvents{Offset: offset(0)}, ids, size)
	if len(got) != 1 || next != 1 || !more {
		t.Fatalf("page = %v next %d more %v, want one event", got, next, more)
	}
}

// TestPageCountsEscapes: an event stored with <, > and & as they are (a
// file another tool wrote) counts six bytes for each, as the protocol's
// encoder writes it, so a page of them stays under plugin.PageBytes.
func TestPageCountsEscapes(t *testing.T) {
	t.Parallel()
	code := strings.Repeat("<", 200_000) // 1.2 MB sent
	p := newEventPage(plugin.ReadEvents{Offset: offset(0)}, func(e conversation.Event) (json.RawMessage, error) {
		return fmt.Appendf(nil, `{"id":%q,"content":%q}`, e.ID, code), nil
	})
	for _, id := range []string{"e0", "e1"} {
		if err := p.add(conversation.Event{ID: id}); err != nil {
			break
		}
	}
	if len(p.data) != 1 || !p.more || p.bytes < 6*len(code) {
		t.Fatalf("page of %d events, %d bytes, more %v: want one event of %d bytes sent", len(p.data), p.bytes, p.more, 6*len(code))
	}
	if got := wireSize([]byte("a<b>&\u2028")); got != 8+15+3 { // 8 bytes stored, 3 escapes of 5 more, one of 3 more
		t.Fatalf("wireSize = %d", got)
	}
}
