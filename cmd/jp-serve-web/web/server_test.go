package web

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	t0       = time.Date(2026, 9, 26, 9, 14, 0, 0, time.UTC)
	yes, no  = true, false
	recHereA = &conversation.LastRoot{Path: "/src/a", LastUsed: t0, Live: &yes}
)

func fixture() *fakeHost {
	return &fakeHost{
		workspaces: []plugin.WorkspaceEntry{
			{ID: "x9y8z7w", Slug: "old", Roots: []plugin.WorkspaceRoot{}},
			{ID: "a1b2c3d", Slug: "proj", Launch: true, Roots: []plugin.WorkspaceRoot{
				{Path: "/src/a", Storage: "/src/a/.jp", LastUsed: t0},
				{Path: "/src/b & c", Storage: "/src/b & c/.jp", LastUsed: t0.Add(-time.Hour)},
			}},
		},
		convs: map[string][]plugin.ConversationSummary{
			"/src/b & c": {
				{ID: "17127583920", Title: "Refactor config", LastActivatedAt: t0, EventsCount: 4, LastRoot: recHereA},
				{ID: "17127583921", Title: "Here one", LastActivatedAt: t0, EventsCount: 4,
					LastRoot: &conversation.LastRoot{Path: "/src/b & c", LastUsed: t0, Live: &yes}},
				{ID: "17127583922", Title: "Gone", LastActivatedAt: t0, EventsCount: 4,
					LastRoot: &conversation.LastRoot{Path: "/src/gone", LastUsed: t0, Live: &no}},
				{ID: "17127583923", LastActivatedAt: t0.Add(-48 * time.Hour)},
				{ID: "17127583924", Title: "Old stuff", LastActivatedAt: t0, ArchivedAt: &t0},
			},
		},
		events: map[string]plugin.Events{},
	}
}

func newServer(t *testing.T, f *fakeHost) (*Server, *httptest.Server) {
	t.Helper()
	s := New(f, func() time.Time { return t0.Add(5 * time.Minute) }, nil)
	ts := httptest.NewServer(withToken(s, s.Handler()))
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return s, ts
}

func get(t *testing.T, ts *httptest.Server, path string) (int, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusSeeOther {
		return resp.StatusCode, resp.Header.Get("Location")
	}
	return resp.StatusCode, string(b)
}

func postJSON(t *testing.T, ts *httptest.Server, path string, body any) (int, map[string]any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: answer is not JSON: %v", path, err)
	}
	return resp.StatusCode, out
}

// section returns the part of page from the element with marker to the
// next marker of the same kind (or the end).
func section(page, marker string) string {
	i := strings.Index(page, marker)
	if i < 0 {
		return ""
	}
	rest := page[i:]
	if j := strings.Index(rest[len(marker):], marker[:strings.IndexAny(marker, "=")+1]); j >= 0 {
		return rest[:len(marker)+j]
	}
	return rest
}

func TestWorkspacesPage(t *testing.T) {
	_, ts := newServer(t, fixture())
	code, page := get(t, ts, "/")
	if code != http.StatusOK {
		t.Fatalf("GET / = %d\n%s", code, page)
	}
	// The launch workspace comes first, highlighted, with both checkouts
	// linked (paths escaped in the query), newest first.
	launch := strings.Index(page, `id="ws-a1b2c3d"`)
	old := strings.Index(page, `id="ws-x9y8z7w"`)
	if launch < 0 || old < 0 || launch > old {
		t.Fatalf("workspace order: launch at %d, old at %d", launch, old)
	}
	proj := page[launch:old]
	for _, want := range []string{"proj", "a1b2c3d", "launched here",
		`href="/w/a1b2c3d?root=%2fsrc%2fa"`, `href="/w/a1b2c3d?root=%2fsrc%2fb%20%26%20c"`,
		"<code>/src/b &amp; c</code>", "used 5 minutes ago", "used 1 hour ago"} {
		if !strings.Contains(proj, want) {
			t.Errorf("launch workspace card lacks %q:\n%s", want, proj)
		}
	}
	if !strings.Contains(page[:launch], `class="card workspace launch"`) {
		t.Errorf("the launch workspace is not highlighted")
	}
	if oldCard := page[old:]; !strings.Contains(oldCard, "No live checkout") || strings.Contains(oldCard, "launched here") {
		t.Errorf("workspace without checkouts:\n%s", oldCard)
	}
}

func TestConversationsPageSaysWhereEachLastRan(t *testing.T) {
	_, ts := newServer(t, fixture())
	code, page := get(t, ts, "/w/a1b2c3d?root="+url.QueryEscape("/src/b & c"))
	if code != http.StatusOK {
		t.Fatalf("status %d\n%s", code, page)
	}
	rows := map[string]string{}
	for _, id := range []string{"17127583920", "17127583921", "17127583922", "17127583923", "17127583924"} {
		rows[id] = section(page, `data-conversation="`+id+`"`)
	}
	for id, want := range map[string][]string{
		"17127583920": {"Refactor config", `class="where elsewhere"`, "in <code>/src/a</code>"},
		"17127583921": {"Here one", `class="where here"`, ">here<"},
		"17127583922": {"Gone", `class="where gone"`, "last ran in a worktree that no longer exists"},
		"17127583923": {"Untitled", `class="where none"`, "no record yet", "2 days ago"},
	} {
		for _, w := range want {
			if !strings.Contains(rows[id], w) {
				t.Errorf("row %s lacks %q:\n%s", id, w, rows[id])
			}
		}
	}
	if !strings.Contains(page, "Archived (1)") || !strings.Contains(rows["17127583924"], "Old stuff") {
		t.Errorf("archived conversations are not listed apart")
	}
	if !strings.Contains(page, `action="/w/a1b2c3d/new?root=%2Fsrc%2Fb&#43;%26&#43;c"`) {
		t.Errorf("no new-conversation form for this checkout")
	}
	if !strings.Contains(page, `Other checkouts:`) || !strings.Contains(page, `href="/w/a1b2c3d?root=%2fsrc%2fa"`) {
		t.Errorf("the other checkout is not offered")
	}
}

func TestCheckoutAddressing(t *testing.T) {
	f := fixture()
	f.workspaces = append(f.workspaces, plugin.WorkspaceEntry{ID: "solo123", Slug: "solo",
		Roots: []plugin.WorkspaceRoot{{Path: "/solo", LastUsed: t0}}})
	_, ts := newServer(t, f)
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/w/zzzzzzz?root=%2Fx", http.StatusNotFound, "jp knows no workspace zzzzzzz"},
		{"/w/NOPE?root=%2Fx", http.StatusBadRequest, "is not a workspace ID"},
		{"/w/a1b2c3d?root=rel", http.StatusBadRequest, "is not an absolute path"},
		{"/w/a1b2c3d?root=%2Fsrc%2Fgone", http.StatusNotFound, "/src/gone is not a live checkout of workspace proj (a1b2c3d) any more"},
		{"/w/a1b2c3d", http.StatusBadRequest, "has 2 live checkouts: pick one"},
		{"/w/solo123", http.StatusSeeOther, "/w/solo123?root=%2Fsolo"},
		{"/w/a1b2c3d/c/x..y?root=%2Fsrc%2Fa", http.StatusBadRequest, "conversation"},
		{"/w/a1b2c3d/c/17127580000?root=%2Fsrc%2Fa", http.StatusBadGateway, "jp could not read conversation 17127580000: conversation 17127580000 not found"},
	} {
		code, body := get(t, ts, tc.path)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s = %d, want %d with %q:\n%s", tc.path, code, tc.code, tc.want, body)
		}
	}
	f.mu.Lock()
	f.err = errors.New("pluginsdk: the connection to jp is closed")
	f.mu.Unlock()
	if code, body := get(t, ts, "/"); code != http.StatusBadGateway || !strings.Contains(body, "jp could not list the workspaces: pluginsdk: the connection to jp is closed") {
		t.Errorf("host failure = %d\n%s", code, body)
	}
}

func TestNewConversation(t *testing.T) {
	f := fixture()
	_, ts := newServer(t, f)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(ts.URL+"/w/a1b2c3d/new?root=%2Fsrc%2Fa", url.Values{"title": {"  Release notes "}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/w/a1b2c3d/c/17127584511?root=%2Fsrc%2Fa" {
		t.Fatalf("create = %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	f.mu.Lock()
	created := f.created
	f.mu.Unlock()
	if len(created) != 1 || created[0].Ref != (workspace.Ref{ID: "a1b2c3d", Root: "/src/a"}) || created[0].Title != "Release notes" {
		t.Fatalf("created = %+v", created)
	}
	// A form posted from another site is refused.
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/w/a1b2c3d/new?root=%2Fsrc%2Fa", strings.NewReader("title=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin create = %d", resp.StatusCode)
	}
	for _, tc := range []struct {
		site, origin string
		code         int
	}{
		{"cross-site", "", http.StatusForbidden},
		{"same-site", "http://127.0.0.1:1", http.StatusForbidden},
		{"same-origin", "null", http.StatusSeeOther}, // Chrome's form POST under a strict referrer policy
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/w/a1b2c3d/new?root=%2Fsrc%2Fa", strings.NewReader("title=x"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", tc.site)
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("Sec-Fetch-Site %s, Origin %q = %d, want %d", tc.site, tc.origin, resp.StatusCode, tc.code)
		}
	}
}

// asStored is evs as read_events carries them: each in its stored form.
func asStored(evs []conversation.Event) []json.RawMessage {
	out := make([]json.RawMessage, len(evs))
	for i, e := range evs {
		b, err := eventcodec.Marshal(e)
		if err != nil {
			panic(err)
		}
		out[i] = b
	}
	return out
}

func storedEvents() []conversation.Event {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	return []conversation.Event{
		{Type: conversation.EventTypeTurnStart, ID: "e1", Timestamp: at(0), Root: "/src/a"},
		{Type: conversation.EventTypeChatRequest, ID: "e2", Timestamp: at(0), Content: "<script>alert(1)</script> hi", Author: "user"},
		{Type: conversation.EventTypeChatResponse, ID: "e3", Timestamp: at(1), Reasoning: "Think about **it**"},
		{Type: conversation.EventTypeChatResponse, ID: "e4", Timestamp: at(1), Message: "Run:\n\n```sh\necho <hi>\n```\n\nDone `now`."},
		{Type: conversation.EventTypeToolCallRequest, ID: "e5", Timestamp: at(2), CallID: "call_0_0", Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)},
		{Type: conversation.EventTypeToolCallResponse, ID: "e6", Timestamp: at(2), CallID: "call_0_0", Content: "boom", IsError: true},
		{Type: conversation.EventTypeTurnEnd, ID: "e7", Timestamp: at(3), Outcome: conversation.OutcomeStopped},
	}
}

func TestConversationPage(t *testing.T) {
	f := fixture()
	f.events["17127583920"] = plugin.Events{Conversation: "17127583920", Data: asStored(storedEvents()),
		LastRoot: &conversation.LastRoot{Path: "/src/a", LastUsed: t0}} // no live flag: derived
	_, ts := newServer(t, f)
	code, page := get(t, ts, "/w/a1b2c3d/c/17127583920?root="+url.QueryEscape("/src/b & c"))
	if code != http.StatusOK {
		t.Fatalf("status %d\n%s", code, page)
	}
	for _, want := range []string{
		"<h1>Refactor config</h1>",
		`<div class="ev turn" data-event-id="e1"><span>Turn in <code>/src/a</code></span>`,
		`<div class="body plain">&lt;script&gt;alert(1)&lt;/script&gt; hi</div>`,
		`<details class="ev reasoning" data-event-id="e3"><summary>Reasoning</summary><div class="body plain">Think about **it**</div></details>`,
		`<span class="lang">sh</span><button type="button" class="copy" title="Copy the code">Copy</button></div><pre><code>echo &lt;hi&gt;</code></pre>`,
		`<p>Done <code>now</code>.</p>`,
		`<code class="summary">$ echo</code>`,
		"{\n  &#34;text&#34;: &#34;x&#34;\n}",
		`class="ev tool result error"`, "Tool error",
		`<div class="ev turn-end stopped" data-event-id="e7">Turn stopped</div>`,
		`<script src="/static/app.js"></script>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>alert") {
		t.Fatal("user text reached the page unescaped")
	}
	m := regexp.MustCompile(`data-state="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no page state")
	}
	var st pageState
	if err := json.Unmarshal([]byte(htmlUnescape(m[1])), &st); err != nil {
		t.Fatalf("state %s: %v", m[1], err)
	}
	if st.Workspace != "a1b2c3d" || st.Viewed != "/src/b & c" || st.Conversation != "17127583920" || st.Fresh ||
		len(st.Roots) != 2 || st.Record == nil || st.Record.Path != "/src/a" || st.Record.Live == nil || !*st.Record.Live {
		t.Fatalf("state = %+v", st)
	}
}

func htmlUnescape(s string) string {
	r := strings.NewReplacer("&#34;", `"`, "&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#39;", "'", "&#43;", "+")
	return r.Replace(s)
}

// sseReader reads server-sent events.
type sseReader struct {
	t    *testing.T
	resp *http.Response
	r    *bufio.Reader
}

func openEvents(t *testing.T, ts *httptest.Server, turn, lastID string) *sseReader {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/turns/"+turn+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &sseReader{t: t, resp: resp, r: bufio.NewReader(resp.Body)}
}

// next returns the next event's id and data, or io.EOF at the end.
func (s *sseReader) next() (string, viewEvent, error) {
	s.t.Helper()
	var id, data string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return "", viewEvent{}, err
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "" && data != "":
			var v viewEvent
			if err := json.Unmarshal([]byte(data), &v); err != nil {
				s.t.Fatalf("event data %q: %v", data, err)
			}
			return id, v, nil
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		}
	}
}

func (s *sseReader) must() viewEvent {
	s.t.Helper()
	_, v, err := s.next()
	if err != nil {
		s.t.Fatalf("event stream: %v", err)
	}
	return v
}

func TestQueryStreamsTheTurn(t *testing.T) {
	f := fixture()
	st := newFakeStream()
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) { return st, nil }
	f.events["17127583920"] = plugin.Events{LastRoot: &conversation.LastRoot{Path: "/src/a", LastUsed: t0.Add(time.Minute), Live: &yes}}
	_, ts := newServer(t, f)

	code, ans := postJSON(t, ts, "/api/query", map[string]any{
		"workspace": "a1b2c3d", "root": "/src/a", "conversation": "17127583920", "content": "hello",
		"expected_last_root": map[string]any{"path": "/src/a", "last_used": t0, "live": true},
	})
	if code != http.StatusOK || ans["turn"] == "" {
		t.Fatalf("query = %d %v", code, ans)
	}
	f.mu.Lock()
	q := f.queries[0]
	f.mu.Unlock()
	if q.Ref != (workspace.Ref{ID: "a1b2c3d", Root: "/src/a"}) || q.Query.Content != "hello" || q.Query.Conversation != "17127583920" ||
		q.Query.ExpectedLastRoot == nil || !q.Query.ExpectedLastRoot.SameRecord(*recHereA) || q.Query.ExpectedLastRoot.Live != nil {
		t.Fatalf("host got %+v (expected %+v)", q, q.Query.ExpectedLastRoot)
	}
	turn := ans["turn"].(string)
	ev := openEvents(t, ts, turn, "")

	// Each piece reaches the page before the next one exists.
	st.push(`{"type":"turn_start","id":"e1","timestamp":"2026-09-26T09:14:00Z","root":"/src/a"}`)
	if v := ev.must(); v.Kind != "event" || v.Type != "turn_start" || !strings.Contains(v.HTML, "Turn in <code>/src/a</code>") {
		t.Fatalf("first = %+v", v)
	}
	st.push(`{"type":"chat_response_delta","text":"Hel"}`)
	if v := ev.must(); v.Kind != "delta" || v.Text != "Hel" || v.Reasoning {
		t.Fatalf("delta = %+v", v)
	}
	st.push(`{"type":"chat_response_delta","text":"hmm","reasoning":true}`)
	if v := ev.must(); v.Kind != "delta" || !v.Reasoning {
		t.Fatalf("reasoning delta = %+v", v)
	}
	st.ask(`{"type":"tool_approval","call_id":"call_0_0","name":"echo","arguments":{"text":"<b>"}}`)
	v := ev.must()
	if v.Kind != "approval" || v.CallID != "call_0_0" || !strings.Contains(v.HTML, `data-approval="call_0_0"`) ||
		!strings.Contains(v.HTML, "&lt;b&gt;") || !strings.Contains(v.HTML, `data-action="approve"`) {
		t.Fatalf("approval = %+v", v)
	}
	for _, tc := range []struct {
		body map[string]any
		code int
	}{
		{map[string]any{"call_id": "call_9", "action": "approve"}, http.StatusNotFound},
		{map[string]any{"call_id": "call_0_0", "action": "maybe"}, http.StatusBadRequest},
		{map[string]any{"call_id": "call_0_0", "action": "approve"}, http.StatusOK},
		{map[string]any{"call_id": "call_0_0", "action": "reject"}, http.StatusConflict},
	} {
		if code, ans := postJSON(t, ts, "/api/turns/"+turn+"/respond", tc.body); code != tc.code {
			t.Errorf("respond %v = %d %v", tc.body, code, ans)
		}
	}
	f.mu.Lock()
	responds := f.responds
	f.mu.Unlock()
	if len(responds) != 1 || responds[0] != (respondCall{"call_0_0", "approve"}) {
		t.Fatalf("responds = %+v", responds)
	}
	if v := ev.must(); v.Kind != "answered" || v.CallID != "call_0_0" || v.Outcome != "approve" {
		t.Fatalf("after the answer = %+v", v)
	}
	st.push(`{"type":"chat_response","id":"e4","timestamp":"2026-09-26T09:14:01Z","message":"Hello"}`)
	if v := ev.must(); v.Kind != "event" || v.Type != "chat_response" || v.ID != "e4" || !strings.Contains(v.HTML, "<p>Hello</p>") {
		t.Fatalf("response = %+v", v)
	}
	st.end(plugin.QueryComplete{Conversation: "17127583920", Outcome: conversation.OutcomeCompleted})
	v = ev.must()
	if v.Kind != "complete" || v.Outcome != "completed" || v.LastRoot == nil || !v.LastRoot.LastUsed.Equal(t0.Add(time.Minute)) {
		t.Fatalf("complete = %+v", v)
	}
	if _, _, err := ev.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after complete: %v", err)
	}
	// A page that reconnects gets what came after the last event it saw.
	again := openEvents(t, ts, turn, "1")
	if v := again.must(); v.Kind != "delta" || v.Text != "hmm" {
		t.Fatalf("resumed at %+v", v)
	}
}

func TestQueryRefusedCarriesTheRecord(t *testing.T) {
	f := fixture()
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) {
		return nil, plugin.Error{Request: "query", Message: "the conversation last ran in /src/b, another checkout",
			LastRoot: &conversation.LastRoot{Path: "/src/b", LastUsed: t0, Live: &yes}}
	}
	_, ts := newServer(t, f)
	code, ans := postJSON(t, ts, "/api/query", map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "conversation": "17127583920", "content": "x"})
	lr, _ := ans["last_root"].(map[string]any)
	if code != http.StatusConflict || ans["error"] != "the conversation last ran in /src/b, another checkout" ||
		lr["path"] != "/src/b" || lr["live"] != true || lr["last_used"] != "2026-09-26T09:14:00Z" {
		t.Fatalf("refusal = %d %v", code, ans)
	}
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) {
		return nil, plugin.Error{Request: "query", Message: "conversation 17127583920 is locked by another jp"}
	}
	code, ans = postJSON(t, ts, "/api/query", map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "conversation": "17127583920", "content": "x"})
	if code != http.StatusConflict || ans["last_root"] != nil || !strings.Contains(ans["error"].(string), "locked") {
		t.Fatalf("lock refusal = %d %v", code, ans)
	}
}

func TestQueryRequestChecked(t *testing.T) {
	f := fixture()
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) {
		t.Error("a bad request reached jp")
		return nil, errors.New("no")
	}
	_, ts := newServer(t, f)
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"workspace": "A1", "root": "/a", "conversation": "17127583920", "content": "x"}, "is not a workspace ID"},
		{map[string]any{"workspace": "a1b2c3d", "conversation": "17127583920", "content": "x"}, "root is required"},
		{map[string]any{"workspace": "a1b2c3d", "root": "/a/../b", "conversation": "17127583920", "content": "x"}, "not a clean path"},
		{map[string]any{"workspace": "a1b2c3d", "root": "/a", "conversation": "../x", "content": "x"}, "conversation"},
		{map[string]any{"workspace": "a1b2c3d", "root": "/a", "conversation": "17127583920", "content": "  \n"}, "the message is empty"},
		{map[string]any{"workspace": "a1b2c3d", "root": "/a", "conversation": "17127583920", "content": "x", "extra": 1}, "unknown field"},
	} {
		code, ans := postJSON(t, ts, "/api/query", tc.body)
		if code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(ans["error"]), tc.want) {
			t.Errorf("%v = %d %v, want %q", tc.body, code, ans, tc.want)
		}
	}
	resp, err := http.Post(ts.URL+"/api/query", "text/plain", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain = %d", resp.StatusCode)
	}
}

func TestInterruptAndTurnErrors(t *testing.T) {
	f := fixture()
	st := newFakeStream()
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) { return st, nil }
	f.events["17127583920"] = plugin.Events{}
	s, ts := newServer(t, f)
	_, ans := postJSON(t, ts, "/api/query", map[string]any{"workspace": "a1b2c3d", "root": "/src/b & c", "conversation": "17127583920", "content": "x"})
	turn := ans["turn"].(string)
	if got := s.turns.runningOn("a1b2c3d", "17127583920"); got != turn {
		t.Fatalf("running = %q", got)
	}
	if code, ans := postJSON(t, ts, "/api/turns/"+turn+"/interrupt", map[string]any{}); code != http.StatusOK {
		t.Fatalf("interrupt = %d %v", code, ans)
	}
	f.mu.Lock()
	in := f.interrupts
	f.mu.Unlock()
	if len(in) != 1 || in[0] != (interruptCall{workspace.Ref{ID: "a1b2c3d", Root: "/src/b & c"}, "17127583920"}) {
		t.Fatalf("interrupts = %+v", in)
	}
	if code, _ := postJSON(t, ts, "/api/turns/999/interrupt", map[string]any{}); code != http.StatusNotFound {
		t.Fatalf("unknown turn = %d", code)
	}
	ev := openEvents(t, ts, turn, "")
	st.fail(plugin.Error{Request: "query", Message: "the provider refused the request"})
	v := ev.must()
	if v.Kind != "complete" || v.Outcome != "error" || v.Error != "the provider refused the request" {
		t.Fatalf("complete = %+v", v)
	}
	if _, _, err := ev.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after complete: %v", err)
	}
	if !st.isClosed() {
		t.Fatal("the finished stream was not closed")
	}
	if got := s.turns.runningOn("a1b2c3d", "17127583920"); got != "" {
		t.Fatalf("still running: %q", got)
	}
}

// TestServeShutsDownCleanly: when the run's context ends (jp relayed
// shutdown), an open event stream ends, the turn's stream is closed,
// Serve returns nil, and no goroutine is left (TestMain's goleak).
func TestServeShutsDownCleanly(t *testing.T) {
	f := fixture()
	st := newFakeStream()
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) { return st, nil }
	s := New(f, time.Now, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: bearer{s.Token(), &http.Transport{DisableKeepAlives: true}}}

	body := `{"workspace":"a1b2c3d","root":"/src/a","conversation":"17127583920","content":"x"}`
	resp, err := client.Post(base+"/api/query", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var ans map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	resp, err = client.Get(base + "/api/turns/" + ans["turn"] + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	st.push(`{"type":"chat_response_delta","text":"a"}`)
	r := bufio.NewReader(resp.Body)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "id: 0") {
		t.Fatalf("first line %q, %v", line, err)
	}

	// A request for another host name is refused (DNS rebinding).
	req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
	req.Host = "evil.example:80"
	if resp, err := client.Do(req); err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("foreign host = %v, %v", resp, err)
	} else {
		resp.Body.Close()
	}

	cancel()
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	if _, err := io.ReadAll(r); err != nil {
		t.Fatalf("event stream did not end cleanly: %v", err)
	}
	if !st.isClosed() {
		t.Fatal("the turn's stream was not closed")
	}
	client.CloseIdleConnections()
}

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		args []string
		port int
		err  string
	}{
		{"", nil, DefaultPort, ""},
		{"{}", nil, DefaultPort, ""},
		{`{"port":8080}`, nil, 8080, ""},
		{`{"port":0}`, nil, 0, ""},
		{`{"port":"8080"}`, nil, 0, `plugins.command.serve-web.options.port must be a port number (0-65535), not "8080"`},
		{`{"port":70000}`, nil, 0, "must be a port number (0-65535), not 70000"},
		{`{"port":1.5}`, nil, 0, "not 1.5"},
		{`{"prot":1}`, nil, 0, "unknown option plugins.command.serve-web.options.prot (the options are port and socket)"},
		{`[1]`, nil, 0, "plugins.command.serve-web.options must be a table"},
		{"{}", []string{"--port", "1"}, 0, `jp serve web takes no arguments (got "--port 1")`},
	} {
		o, err := ParseOptions(json.RawMessage(tc.raw), tc.args)
		switch {
		case tc.err == "" && (err != nil || o.Port != tc.port):
			t.Errorf("%s: %+v, %v", tc.raw, o, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: err %v, want %q", tc.raw, err, tc.err)
		}
	}
}

func TestStatic(t *testing.T) {
	_, ts := newServer(t, fixture())
	for _, p := range []string{"/static/style.css", "/static/app.js", "/static/icon.svg"} {
		if code, body := get(t, ts, p); code != http.StatusOK || len(body) < 100 {
			t.Errorf("GET %s = %d (%d bytes)", p, code, len(body))
		}
	}
	if code, _ := get(t, ts, "/nope"); code != http.StatusNotFound {
		t.Errorf("GET /nope = %d", code)
	}
}
