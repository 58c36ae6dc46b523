package web

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
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

// setEvents replaces the fake's stored events, as another jp appending
// (or rewinding) would.
func setEvents(f *fakeHost, evs []conversation.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events[watchConv] = plugin.Events{Conversation: watchConv, Data: evs}
}

// TestWatchFollowsStoredEvents: the watch sends each stored event after
// the ones the page shows, rendered, with its index as the event ID; it
// follows events stored later (by a terminal's jp q), resumes after
// Last-Event-ID, and says reset (and ends) when the conversation holds
// fewer events than the page shows.
func TestWatchFollowsStoredEvents(t *testing.T) {
	f := fixture()
	all := storedEvents()
	setEvents(f, all[:2])
	_, ts := newServer(t, f)

	w := openWatch(t, ts, watchQuery("1"), "")
	id, v, err := w.next()
	if err != nil || id != "1" || v.Kind != "event" || v.ID != "e2" || v.Type != "chat_request" {
		t.Fatalf("first = %q %+v %v", id, v, err)
	}
	if want := `&lt;script&gt;alert(1)&lt;/script&gt; hi`; !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(v.HTML) {
		t.Fatalf("html = %s", v.HTML)
	}
	setEvents(f, all[:4]) // a terminal's turn stores two more
	for _, want := range []struct{ id, ev string }{{"2", "e3"}, {"3", "e4"}} {
		id, v, err := w.next()
		if err != nil || id != want.id || v.ID != want.ev {
			t.Fatalf("next = %q %+v %v, want %s %s", id, v, err, want.id, want.ev)
		}
	}

	// A reconnect names the last event it got: it gets the rest only.
	r := openWatch(t, ts, watchQuery("0"), "2")
	if id, v, err := r.next(); err != nil || id != "3" || v.ID != "e4" {
		t.Fatalf("resumed = %q %+v %v", id, v, err)
	}

	// Rewound elsewhere: reset, and the stream ends.
	setEvents(f, all[:1])
	if _, v, err := w.next(); err != nil || v.Kind != "reset" {
		t.Fatalf("after a rewind = %+v %v", v, err)
	}
	if _, _, err := w.next(); err != io.EOF {
		t.Fatalf("after reset: %v, want the end", err)
	}
}

// TestWatchSaysOnceWhenJPCannotRead: a read that fails is one notice, and
// the watch keeps following.
func TestWatchSaysOnceWhenJPCannotRead(t *testing.T) {
	f := fixture() // the conversation is unknown: read_events fails
	_, ts := newServer(t, f)
	w := openWatch(t, ts, watchQuery("0"), "")
	if _, v, err := w.next(); err != nil || v.Kind != "notice" || v.Text != "jp could not read this conversation to follow it: conversation "+watchConv+" not found" {
		t.Fatalf("notice = %+v %v", v, err)
	}
	setEvents(f, storedEvents()[:1])
	if id, v, err := w.next(); err != nil || id != "0" || v.ID != "e1" {
		t.Fatalf("after the failure = %q %+v %v (want the event, no second notice)", id, v, err)
	}
}

// TestWatchClosesWithTheServer: Close ends a watch (goleak checks the
// handler is gone).
func TestWatchClosesWithTheServer(t *testing.T) {
	f := fixture()
	setEvents(f, storedEvents()[:1])
	s, ts := newServer(t, f)
	w := openWatch(t, ts, watchQuery("0"), "")
	w.must()
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
			f.events[watchConv] = plugin.Events{Conversation: watchConv, Data: storedEvents()}
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
