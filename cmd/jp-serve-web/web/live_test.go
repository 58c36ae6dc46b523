package web

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

func openWatch(t *testing.T, ts *httptest.Server, query, lastID string) *sseReader {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/watch?"+query, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("watch = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return &sseReader{t: t, resp: resp, r: bufio.NewReader(resp.Body)}
}

const watchConv = "17127583920"

func watchQuery(after string) string {
	return "workspace=a1b2c3d&root=" + url.QueryEscape("/src/a") + "&conversation=" + watchConv + "&after=" + after
}

// setEvents replaces the fake's stored events and record, as another jp
// appending (or rewinding) would.
func setEvents(f *fakeHost, evs []conversation.Event, lr *conversation.LastRoot) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events[watchConv] = plugin.Events{Conversation: watchConv, Data: asStored(evs), LastRoot: lr}
}

// expect reads the next watch event and checks its SSE id, kind and
// event ID.
func (s *sseReader) expect(id, kind, evID string) viewEvent {
	s.t.Helper()
	gotID, v, err := s.next()
	if err != nil || gotID != id || v.Kind != kind || v.ID != evID {
		s.t.Fatalf("watch sent %q %+v %v, want id %q kind %s event %q", gotID, v, err, id, kind, evID)
	}
	return v
}

// TestWatchFollowsStoredEvents: the watch sends each stored event after
// the ones the page shows, rendered, with its index as the event ID; the
// record, first and when it moves; the answer in flight as it grows, and
// its end. It follows what is stored later (by a terminal's jp q),
// resumes after Last-Event-ID, and says reset (and ends) when the
// conversation holds fewer events than the page shows.
func TestWatchFollowsStoredEvents(t *testing.T) {
	f := fixture()
	all := storedEvents()
	setEvents(f, all[:2], nil)
	_, ts := newServer(t, f)

	w := openWatch(t, ts, watchQuery("1"), "")
	v := w.expect("1", "event", "e2")
	if v.Type != "chat_request" || v.Text != "<script>alert(1)</script> hi" || !strings.Contains(v.HTML, `&lt;script&gt;alert(1)&lt;/script&gt; hi`) {
		t.Fatalf("event = %+v", v)
	}
	if v := w.expect("", "record", ""); v.LastRoot != nil {
		t.Fatalf("record = %+v, want none", v.LastRoot)
	}

	// A terminal's turn: the answer in flight, growing, then stored.
	inFlight := func(text string) conversation.Event {
		return conversation.Event{Type: conversation.EventTypeChatResponse, ID: partialPrefix + "ab12", Timestamp: t0, Message: text}
	}
	setEvents(f, append(all[:2:2], inFlight("so far")), recHereA)
	if v := w.expect("", "record", ""); v.LastRoot == nil || v.LastRoot.Path != "/src/a" {
		t.Fatalf("record = %+v", v.LastRoot)
	}
	if v := w.expect("", "partial", partialPrefix+"ab12"); !strings.Contains(v.HTML, "so far") {
		t.Fatalf("partial = %s", v.HTML)
	}
	setEvents(f, append(all[:2:2], inFlight("so far, and more")), recHereA)
	if v := w.expect("", "partial", partialPrefix+"ab12"); !strings.Contains(v.HTML, "so far, and more") {
		t.Fatalf("partial = %s", v.HTML)
	}
	setEvents(f, all[:4], recHereA)
	w.expect("2", "event", "e3")
	w.expect("3", "event", "e4")
	if v := w.expect("", "partial", ""); v.HTML != "" {
		t.Fatalf("the end of the block in flight = %+v", v)
	}

	// A reconnect names the last event it got: it gets the rest only.
	r := openWatch(t, ts, watchQuery("0"), "2")
	r.expect("3", "event", "e4")

	// Rewound elsewhere: reset, and the stream ends.
	setEvents(f, all[:1], recHereA)
	w.expect("", "reset", "")
	if _, _, err := w.next(); err != io.EOF {
		t.Fatalf("after reset: %v, want the end", err)
	}
}

// TestPageCountsStoredEventsOnly: the answer in flight is shown but not
// counted: the watch starts after the stored events.
func TestPageCountsStoredEventsOnly(t *testing.T) {
	evs := append(storedEvents(), conversation.Event{Type: conversation.EventTypeChatResponse, ID: partialPrefix + "1", Message: "so far"})
	if n := storedCount(evs); n != len(evs)-1 {
		t.Fatalf("storedCount = %d, want %d", n, len(evs)-1)
	}
	if n := storedCount(storedEvents()); n != len(storedEvents()) {
		t.Fatalf("storedCount = %d", n)
	}
}

// TestWatchSaysOnceWhenJPCannotRead: a read that fails is one notice, and
// the watch keeps following.
func TestWatchSaysOnceWhenJPCannotRead(t *testing.T) {
	f := fixture() // the conversation is unknown: read_events fails
	_, ts := newServer(t, f)
	w := openWatch(t, ts, watchQuery("0"), "")
	if _, v, err := w.next(); err != nil || v.Kind != "notice" || v.Text != "jp could not read this conversation to follow it: conversation "+watchConv+" not found (still trying)." {
		t.Fatalf("notice = %+v %v", v, err)
	}
	setEvents(f, storedEvents()[:1], nil)
	if v := w.expect("", "notice", ""); v.Text != "" { // no second notice: the first one is taken back
		t.Fatalf("notice = %+v, want one with no text", v)
	}
	w.expect("0", "event", "e1")
}

// TestWatchReadsOnlyWhatIsNew: each read asks jp only for the events
// after those the page has (read_events' offset), and a read that jp
// answers in pages reads them all at once, in order.
func TestWatchReadsOnlyWhatIsNew(t *testing.T) {
	f := fixture()
	f.pageLimit = 1
	all := storedEvents()
	setEvents(f, all[:2], nil)
	_, ts := newServer(t, f)
	w := openWatch(t, ts, watchQuery("1"), "")
	w.expect("1", "event", "e2")
	w.expect("", "record", "")
	setEvents(f, all[:4], nil)
	w.expect("2", "event", "e3")
	w.expect("3", "event", "e4")
	f.mu.Lock()
	reads := append([]int(nil), f.pageReads...)
	f.mu.Unlock()
	if len(reads) < 3 || reads[0] != 1 || !slices.Contains(reads, 3) || !slices.IsSorted(reads) || slices.Max(reads) > 4 {
		t.Fatalf("offsets read = %v, want 1, then 2 until e3 was stored, 3 at once, then 4", reads)
	}
}

// TestWatchStopsOnAnEventItCannotRead: an event jp sends that the server
// cannot read ends the watch with a line saying so (not a silent end),
// and the page does not come back for it.
func TestWatchStopsOnAnEventItCannotRead(t *testing.T) {
	f := fixture()
	f.events[watchConv] = plugin.Events{Conversation: watchConv, Data: []json.RawMessage{json.RawMessage(`{"type":"chat_request","id":"e1","timestamp":"not a time"}`)}}
	_, ts := newServer(t, f)
	w := openWatch(t, ts, watchQuery("0"), "")
	_, v, err := w.next()
	if err != nil || v.Kind != "stop" || !strings.HasPrefix(v.Text, "This page stopped following the conversation: jp sent an event that could not be read (event 1): ") ||
		!strings.HasSuffix(v.Text, "Reload the page to read it again.") || strings.Contains(v.Text, "\n") {
		t.Fatalf("watch sent %+v %v, want a stop", v, err)
	}
	if _, _, err := w.next(); err != io.EOF {
		t.Fatalf("after the stop: %v, want the end", err)
	}
}

// TestWatchClosesWithTheServer: Close ends a watch (goleak checks the
// handler is gone).
func TestWatchClosesWithTheServer(t *testing.T) {
	f := fixture()
	setEvents(f, storedEvents()[:1], nil)
	s, ts := newServer(t, f)
	w := openWatch(t, ts, watchQuery("0"), "")
	w.expect("0", "event", "e1")
	w.expect("", "record", "")
	s.Close()
	if _, _, err := w.next(); err != io.EOF {
		t.Fatalf("after Close: %v, want the end", err)
	}
}

func TestWatchRequestChecked(t *testing.T) {
	_, ts := newServer(t, fixture())
	for _, q := range []string{
		"workspace=a1b2c3d&root=/src/a&conversation=nope&after=0",
		"workspace=a1b2c3d&root=/src/a&conversation=" + watchConv + "&after=-1",
		"workspace=a1b2c3d&root=/src/a&conversation=" + watchConv,
		"workspace=&root=/src/a&conversation=" + watchConv + "&after=0",
	} {
		if code, body := get(t, ts, "/api/watch?"+q); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", q, code, body)
		}
	}
}

// TestConversationPageQueueRules: the page starts from the count of
// stored events (where its watch starts) and the queue's rules read from
// the checkout's configuration, with the terminal's defaults when jp
// cannot read them.
func TestConversationPageQueueRules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]string
		want   queueRules
	}{
		{"defaults", nil, queueRules{Loop: "if_pending", CountdownSecs: 10}},
		{"configured", map[string]string{"query.loop": `"never"`, "interrupt.loop_countdown.duration_secs": `3`}, queueRules{Loop: "never", CountdownSecs: 3}},
		{"no countdown", map[string]string{"interrupt.loop_countdown.duration_secs": `0`}, queueRules{Loop: "if_pending", CountdownSecs: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fixture()
			f.config = tc.config
			f.events[watchConv] = plugin.Events{Conversation: watchConv, Data: asStored(storedEvents())}
			_, ts := newServer(t, f)
			code, page := get(t, ts, "/w/a1b2c3d/c/"+watchConv+"?root="+url.QueryEscape("/src/a"))
			if code != http.StatusOK {
				t.Fatalf("status %d\n%s", code, page)
			}
			m := regexp.MustCompile(`data-state="([^"]*)"`).FindStringSubmatch(page)
			var st pageState
			if m == nil || json.Unmarshal([]byte(htmlUnescape(m[1])), &st) != nil {
				t.Fatalf("no page state in %s", page)
			}
			if st.Count != len(storedEvents()) || st.Queue != tc.want {
				t.Fatalf("count %d queue %+v, want %d %+v", st.Count, st.Queue, len(storedEvents()), tc.want)
			}
			if !regexp.MustCompile(`<script src="/static/live.js"></script>`).MatchString(page) {
				t.Fatal("the page does not load live.js")
			}
		})
	}
}

// TestRecallAndRemember: the page recalls this conversation's messages,
// newest first, then the session's history, each once; a message sent
// from the page is added to the history once jp started its turn, and a
// refused one is not.
func TestRecallAndRemember(t *testing.T) {
	f := fixture()
	f.history = []string{"old", "<script>alert(1)</script> hi", "from the terminal"}
	f.events[watchConv] = plugin.Events{Conversation: watchConv, Data: asStored(storedEvents())}
	st := newFakeStream()
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) { return st, nil }
	_, ts := newServer(t, f)
	code, page := get(t, ts, "/w/a1b2c3d/c/"+watchConv+"?root="+url.QueryEscape("/src/a"))
	m := regexp.MustCompile(`data-state="([^"]*)"`).FindStringSubmatch(page)
	var state pageState
	if code != http.StatusOK || m == nil || json.Unmarshal([]byte(htmlUnescape(m[1])), &state) != nil {
		t.Fatalf("page %d %s", code, page)
	}
	want := []string{"<script>alert(1)</script> hi", "from the terminal", "old"}
	if strings.Join(state.Recall, "|") != strings.Join(want, "|") {
		t.Fatalf("recall = %q, want %q", state.Recall, want)
	}

	if code, ans := postJSON(t, ts, "/api/query", map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "conversation": watchConv, "content": "sent from the page"}); code != http.StatusOK {
		t.Fatalf("query = %d %v", code, ans)
	}
	st.end(plugin.QueryComplete{Outcome: conversation.OutcomeCompleted})
	f.mu.Lock()
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) {
		return nil, plugin.Error{Request: "query", Message: "refused"}
	}
	f.mu.Unlock()
	if code, _ := postJSON(t, ts, "/api/query", map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "conversation": watchConv, "content": "refused one"}); code != http.StatusConflict {
		t.Fatalf("refused query = %d", code)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if got := f.history[len(f.history)-1]; got != "sent from the page" || len(f.history) != 4 {
		t.Fatalf("history = %q", f.history)
	}
}
