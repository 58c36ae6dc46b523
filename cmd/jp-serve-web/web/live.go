package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

// watchEvery is how often an open conversation page's watch reads the
// conversation's events from jp: a turn started in another frontend (a
// terminal's jp q) shows in the page within about this long of jp storing
// each event.
const watchEvery = 750 * time.Millisecond

// watchRequest is what GET /api/watch names: the checkout the page views,
// the conversation, and how many stored events the page shows already.
type watchRequest struct {
	ref   workspace.Ref
	conv  string
	after int
	// partial is the block in flight last sent (its ID and size), ""
	// when none.
	partial string
	// record is the last-root record last sent (JSON); "" before the
	// first.
	record string
}

// parseWatch reads the watch's query parameters; Last-Event-ID (the index
// of the last event the page got) wins over after on a reconnect.
func parseWatch(r *http.Request) (watchRequest, string) {
	q := r.URL.Query()
	wr := watchRequest{ref: workspace.Ref{ID: q.Get("workspace"), Root: q.Get("root")}, conv: q.Get("conversation")}
	if _, err := workspace.ValidateRef(wr.ref); err != nil {
		return wr, err.Error()
	}
	if _, err := conversation.ParseID(wr.conv); err != nil {
		return wr, err.Error()
	}
	n, err := strconv.Atoi(q.Get("after"))
	if err != nil || n < 0 {
		return wr, fmt.Sprintf("after must be a count of events (0 or more), not %q", q.Get("after"))
	}
	wr.after = n
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		if i, err := strconv.Atoi(id); err == nil && i >= 0 {
			wr.after = i + 1
		}
	}
	return wr, ""
}

// apiWatch streams, as server-sent events, every event stored in a
// conversation after the first `after`, whoever runs the turn that stores
// it: a page of this server, another page, or jp q in a terminal. It
// reads the conversation from jp every watchEvery (jp has no change
// notification to push) and ends when the page goes away or the server
// stops. The request's own goroutine does the work: nothing else runs for
// a watch. Each event is {kind: "event", type, id, html} with the event's
// index as its SSE id; {kind: "partial"} is the answer in flight
// (watchPartial); {kind: "record"} the last-root record (watchRecord); {kind: "reset"} says the conversation now holds
// fewer events than the page shows (rewound elsewhere), and ends the
// stream; {kind: "notice", text} says jp could not read it (the watch
// keeps trying), and one with no text that it reads again; {kind:
// "stop", text} says why the watch ended (jp sent an event it could not
// read), and ends the stream.
func (s *Server) apiWatch(w http.ResponseWriter, r *http.Request) {
	wr, bad := parseWatch(r)
	if bad != "" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: bad})
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: "streaming is not supported here"})
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	failing := false
	for {
		more, err := s.watchStep(r.Context(), w, &wr, &failing)
		if err != nil || !more {
			return
		}
		fl.Flush()
		select {
		case <-tick.C:
		case <-r.Context().Done():
			return
		case <-s.quit:
			return
		}
	}
}

// partialPrefix starts the ID of the block in flight: while an answer
// streams, read_events ends with the text so far as a chat_response with
// such an ID (jp checkpoints it every 200 ms), replaced by the stored
// event when the block ends (docs/plugins.md, read_events).
const partialPrefix = "partial-"

// splitPartial splits the block in flight, when there is one, from the
// stored events.
func splitPartial(evs []conversation.Event) ([]conversation.Event, *conversation.Event) {
	if n := len(evs); n > 0 && strings.HasPrefix(evs[n-1].ID, partialPrefix) {
		return evs[:n-1], &evs[n-1]
	}
	return evs, nil
}

// watchStep reads what is new in the conversation and writes it: the
// stored events after the ones the page has (read_events from that
// offset, a page at a time, so a poll with nothing new costs jp no
// encoding and the page no decoding of the events it has), the record,
// and the block in flight. It returns false when the watch is over (a
// reset or a stop was sent), and an error when the page went away.
func (s *Server) watchStep(ctx context.Context, w http.ResponseWriter, wr *watchRequest, failing *bool) (bool, error) {
	for {
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		page, err := s.host.ReadEventsPage(rctx, wr.ref, wr.conv, wr.after)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			return true, s.watchFailed(w, wr, failing, err)
		}
		if *failing { // read again: the notice no longer holds
			*failing = false
			if err := writeWatch(w, -1, viewEvent{Kind: "notice"}); err != nil {
				return false, err
			}
		}
		events, err := decodeEvents(page.Data)
		if err != nil {
			s.log("watch " + wr.conv + ": " + err.Error())
			return false, writeWatch(w, -1, viewEvent{Kind: "stop", Text: "This page stopped following the conversation: " + err.Error() + ". Reload the page to read it again."})
		}
		stored, partial := splitPartial(events)
		next := wr.after + len(stored)
		if page.NextOffset != nil {
			next = *page.NextOffset
		}
		if next < wr.after {
			return false, writeWatch(w, -1, viewEvent{Kind: "reset", Text: "This conversation changed in another place (rewound?): reload the page to see it as it is now."})
		}
		for _, ev := range stored {
			if err := writeWatch(w, wr.after, s.watchView("event", ev)); err != nil {
				return false, err
			}
			wr.after++
		}
		if page.More && len(stored) > 0 {
			continue // the next page now, not at the next tick
		}
		if err := s.watchRecord(w, wr, page.LastRoot); err != nil {
			return false, err
		}
		return true, s.watchPartial(w, wr, partial)
	}
}

// watchFailed says, once until a read works again, that jp could not
// read the conversation (removed, unreadable, jp gone): the watch keeps
// trying.
func (s *Server) watchFailed(w http.ResponseWriter, wr *watchRequest, failing *bool, err error) error {
	if *failing {
		return nil
	}
	*failing = true
	s.log("watch " + wr.conv + ": " + err.Error())
	return writeWatch(w, -1, viewEvent{Kind: "notice", Text: "jp could not read this conversation to follow it: " + hostMessage(err) + " (still trying)."})
}

// watchRecord sends the conversation's last-root record on the first
// read and whenever it changed: {kind: "record", last_root}. A turn run
// elsewhere moves it, and the page's next send must expect the new one.
func (s *Server) watchRecord(w http.ResponseWriter, wr *watchRequest, lr *conversation.LastRoot) error {
	b, err := json.Marshal(lr)
	if err != nil {
		return err
	}
	if string(b) == wr.record {
		return nil
	}
	wr.record = string(b)
	return writeWatch(w, -1, viewEvent{Kind: "record", LastRoot: lr})
}

// watchPartial sends the block in flight when it changed since the last
// one sent: {kind: "partial", id, html}, or with no html when it is gone
// (stored, or dropped). It has no SSE id: a reconnect gets it anew.
func (s *Server) watchPartial(w http.ResponseWriter, wr *watchRequest, partial *conversation.Event) error {
	key := ""
	if partial != nil {
		key = fmt.Sprintf("%s/%d/%d", partial.ID, len(partial.Message), len(partial.Reasoning))
	}
	if key == wr.partial {
		return nil
	}
	wr.partial = key
	if partial == nil {
		return writeWatch(w, -1, viewEvent{Kind: "partial"})
	}
	return writeWatch(w, -1, s.watchView("partial", *partial))
}

// watchView renders one event for the watch.
func (s *Server) watchView(kind string, ev conversation.Event) viewEvent {
	html, err := s.renderEvent(ev)
	if err != nil {
		return viewEvent{Kind: "notice", Text: err.Error()}
	}
	v := viewEvent{Kind: kind, Type: ev.Type.String(), ID: ev.ID, HTML: string(html), CallID: ev.CallID}
	if ev.Type == conversation.EventTypeChatRequest {
		v.Text = ev.Content // what Up recalls in the page's message box
	}
	return v
}

// writeWatch writes one server-sent event; id < 0 writes none (the event
// is not a stored one, and a reconnect must not skip past it).
func writeWatch(w http.ResponseWriter, id int, v viewEvent) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if id >= 0 {
		_, err = fmt.Fprintf(w, "id: %d\ndata: %s\n\n", id, b)
	} else {
		_, err = fmt.Fprintf(w, "data: %s\n\n", b)
	}
	return err
}

// queueRules is how the page treats a reply queued while a turn runs:
// the terminal's rules (docs/interrupts.md), from the configuration of
// the checkout the page views.
type queueRules struct {
	// Loop is query.loop: "never" keeps a queued reply as the draft.
	Loop string `json:"loop"`
	// CountdownSecs is interrupt.loop_countdown.duration_secs: the
	// countdown before a queued reply is sent (0: sent at once).
	CountdownSecs int `json:"countdown_secs"`
}

// readQueueRules reads the queue's keys; a key jp cannot read keeps its
// default (logged).
func (s *Server) readQueueRules(ctx context.Context, ref workspace.Ref) queueRules {
	q := queueRules{Loop: "if_pending", CountdownSecs: 10}
	if raw, err := s.host.ReadConfig(ctx, ref, "query.loop"); err != nil || json.Unmarshal(raw, &q.Loop) != nil {
		s.log(fmt.Sprintf("read query.loop: %v", err))
		q.Loop = "if_pending"
	}
	var secs int
	if raw, err := s.host.ReadConfig(ctx, ref, "interrupt.loop_countdown.duration_secs"); err != nil || json.Unmarshal(raw, &secs) != nil {
		s.log(fmt.Sprintf("read interrupt.loop_countdown.duration_secs: %v", err))
	} else if secs >= 0 {
		q.CountdownSecs = secs
	}
	return q
}

// storedCount is how many stored events evs holds: the block in flight,
// when there is one, is not one yet.
func storedCount(evs []conversation.Event) int {
	stored, _ := splitPartial(evs)
	return len(stored)
}

// recallMax bounds what a page gets to recall with Up.
const recallMax = 200

// recall is what Up recalls in the message box, newest first, as in the
// terminal's composer (docs/session.md): this conversation's messages,
// then the session's history (every conversation's), each once. A history
// jp cannot read leaves the conversation's own (logged).
func (s *Server) recall(ctx context.Context, evs []conversation.Event) []string {
	out := []string{}
	seen := map[string]bool{}
	add := func(m string) {
		if strings.TrimSpace(m) != "" && !seen[m] && len(out) < recallMax {
			seen[m] = true
			out = append(out, m)
		}
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == conversation.EventTypeChatRequest {
			add(evs[i].Content)
		}
	}
	hist, err := s.host.ReadHistory(ctx)
	if err != nil {
		s.log("read the message history: " + err.Error())
	}
	for i := len(hist) - 1; i >= 0; i-- {
		add(hist[i])
	}
	return out
}

// remember records a message the page sent in the session's history, as
// the terminal's composer does; a failure is logged (the turn runs).
func (s *Server) remember(ctx context.Context, text string) {
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
	defer cancel()
	if err := s.host.AddHistory(hctx, text); err != nil {
		s.log("add to the message history: " + err.Error())
	}
}
