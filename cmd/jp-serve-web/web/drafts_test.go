package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

const draftConv = "17127583920"

var refA = workspace.Ref{ID: "a1b2c3d", Root: "/src/a"}

// putDraft sends PUT /api/draft and returns the status and the decoded
// answer.
func putDraft(t *testing.T, ts *httptest.Server, body any) (int, map[string]any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPut, ts.URL+"/api/draft", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("PUT /api/draft: answer is not JSON: %v", err)
	}
	return resp.StatusCode, out
}

func draftBody(text, rev string) map[string]any {
	return map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "conversation": draftConv, "text": text, "revision": rev}
}

// pageStateOf reads the conversation page's script state.
func pageStateOf(t *testing.T, page string) pageState {
	t.Helper()
	m := regexp.MustCompile(`data-state="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no page state in\n%s", page)
	}
	var st pageState
	if err := json.Unmarshal([]byte(htmlUnescape(m[1])), &st); err != nil {
		t.Fatalf("state %s: %v", m[1], err)
	}
	return st
}

func TestConversationPageStartsFromTheDraft(t *testing.T) {
	f := fixture()
	f.events[draftConv] = plugin.Events{Conversation: draftConv, Data: asStored(storedEvents())}
	rev := f.setDraft(draftConv, "Half a message\n\n<b>typed</b> in a terminal")
	_, ts := newServer(t, f)
	path := "/w/a1b2c3d/c/" + draftConv + "?root=" + url.QueryEscape("/src/b & c")

	code, page := get(t, ts, path)
	if code != http.StatusOK {
		t.Fatalf("status %d\n%s", code, page)
	}
	st := pageStateOf(t, page)
	if st.Draft != (draftState{Text: "Half a message\n\n<b>typed</b> in a terminal", Revision: rev}) || st.DraftError != "" {
		t.Fatalf("draft state = %+v, error %q", st.Draft, st.DraftError)
	}
	if strings.Contains(page, "<b>typed</b>") {
		t.Fatal("the draft reached the page unescaped")
	}
	for _, want := range []string{`id="draft-notice"`, `id="draft-status"`, "jp q -c " + draftConv + " opens it in a terminal"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}

	// A draft jp cannot read does not stop the page: it says why, and the
	// box starts from what the browser kept.
	f.mu.Lock()
	f.draftErr = plugin.Error{Request: "read_draft", Message: "read draft: permission denied"}
	f.mu.Unlock()
	code, page = get(t, ts, path)
	if code != http.StatusOK {
		t.Fatalf("with a failing draft: status %d\n%s", code, page)
	}
	st = pageStateOf(t, page)
	if st.Draft != (draftState{}) || st.DraftError != "jp could not read the conversation's draft: read draft: permission denied" {
		t.Fatalf("draft state = %+v, error %q", st.Draft, st.DraftError)
	}
}

func TestDraftSave(t *testing.T) {
	f := fixture()
	_, ts := newServer(t, f)

	// No draft yet: the page knows no revision, and the first save creates
	// the draft.
	code, ans := putDraft(t, ts, draftBody("Run the", ""))
	if code != http.StatusOK || ans["revision"] != "r1" {
		t.Fatalf("first save = %d %v", code, ans)
	}
	// Each later save names the revision the last one answered.
	code, ans = putDraft(t, ts, draftBody("Run the tests", "r1"))
	if code != http.StatusOK || ans["revision"] != "r2" {
		t.Fatalf("second save = %d %v", code, ans)
	}
	if d := f.draft(draftConv); d.Text != "Run the tests" || d.Revision != "r2" {
		t.Fatalf("jp's draft = %+v", d)
	}
	w := f.writes()
	if len(w) != 2 || w[0] != (draftWrite{refA, draftConv, "Run the", ""}) || w[1] != (draftWrite{refA, draftConv, "Run the tests", "r1"}) {
		t.Fatalf("writes = %+v", w)
	}

	// A terminal changes the draft: a save at the old revision is refused
	// and the terminal's text stays.
	f.setDraft(draftConv, "from the terminal") // r3
	code, ans = putDraft(t, ts, draftBody("Run the tests now", "r2"))
	if code != http.StatusConflict || ans["code"] != codeDraftChanged || !strings.Contains(fmt.Sprint(ans["error"]), "changed since this page read it") {
		t.Fatalf("stale save = %d %v", code, ans)
	}
	if d := f.draft(draftConv); d.Text != "from the terminal" || d.Revision != "r3" {
		t.Fatalf("after a stale save jp's draft = %+v", d)
	}
	// A page that knew no draft does not overwrite one with text.
	n := len(f.writes())
	code, ans = putDraft(t, ts, draftBody("fresh page", ""))
	if code != http.StatusConflict || ans["code"] != codeDraftChanged {
		t.Fatalf("save over an unknown draft = %d %v", code, ans)
	}
	if len(f.writes()) != n || f.draft(draftConv).Text != "from the terminal" {
		t.Fatalf("a draft with text was written over: %+v", f.draft(draftConv))
	}
	// A save whose answer the page missed, sent again at the old revision,
	// finds its own text: no conflict, the current revision.
	code, ans = putDraft(t, ts, draftBody("from the terminal", "r2"))
	if code != http.StatusOK || ans["revision"] != "r3" {
		t.Fatalf("repeated save = %d %v", code, ans)
	}

	// A draft without text (emptied after a send) is written at the
	// revision read, even by a page that knew none.
	f.setDraft(draftConv, "") // r4
	code, ans = putDraft(t, ts, draftBody("next one", ""))
	if code != http.StatusOK || ans["revision"] != "r5" {
		t.Fatalf("save over an empty draft = %d %v", code, ans)
	}
	if w := f.writes(); w[len(w)-1].Revision != "r4" {
		t.Fatalf("the empty draft was written without its revision: %+v", w[len(w)-1])
	}

	// jp failing is a 502 saying what jp said; it is no conflict.
	f.mu.Lock()
	f.draftErr = plugin.Error{Request: "write_draft", Message: "conversation 17127583920 not found"}
	f.mu.Unlock()
	code, ans = putDraft(t, ts, draftBody("x", "r5"))
	if code != http.StatusBadGateway || ans["error"] != "jp could not save the draft: conversation 17127583920 not found" || ans["code"] != nil {
		t.Fatalf("jp's refusal = %d %v", code, ans)
	}
	f.mu.Lock()
	f.draftErr = errors.New("pluginsdk: the connection to jp is closed")
	f.mu.Unlock()
	code, ans = putDraft(t, ts, draftBody("x", "r5"))
	if code != http.StatusBadGateway || ans["error"] != "jp could not save the draft: pluginsdk: the connection to jp is closed" {
		t.Fatalf("a lost jp = %d %v", code, ans)
	}
}

func TestDraftRequestChecked(t *testing.T) {
	f := fixture()
	_, ts := newServer(t, f)
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"workspace": "A1", "root": "/a", "conversation": draftConv, "text": "x"}, "is not a workspace ID"},
		{map[string]any{"workspace": "a1b2c3d", "conversation": draftConv, "text": "x"}, "root is required"},
		{map[string]any{"workspace": "a1b2c3d", "root": "a", "conversation": draftConv, "text": "x"}, "not an absolute path"},
		{map[string]any{"workspace": "a1b2c3d", "root": "/a", "conversation": "../x", "text": "x"}, "conversation"},
		{map[string]any{"workspace": "a1b2c3d", "root": "/a", "conversation": draftConv}, `text is required ("" empties the draft)`},
		{map[string]any{"workspace": "a1b2c3d", "root": "/a", "conversation": draftConv, "text": 3}, "bad request body"},
		{map[string]any{"workspace": "a1b2c3d", "root": "/a", "conversation": draftConv, "text": "x", "revision": "r1\nr2"}, "revision is not one jp gave"},
		{map[string]any{"workspace": "a1b2c3d", "root": "/a", "conversation": draftConv, "text": "x", "rev": "r1"}, "unknown field"},
	} {
		code, ans := putDraft(t, ts, tc.body)
		msg := fmt.Sprint(ans["error"])
		if code != http.StatusBadRequest || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v = %d %q, want 400 with %q on one line", tc.body, code, msg, tc.want)
		}
	}
	if w := f.writes(); len(w) != 0 {
		t.Fatalf("a bad request reached jp: %+v", w)
	}

	send := func(method, ctype string, header map[string]string) int {
		t.Helper()
		b, _ := json.Marshal(draftBody("x", ""))
		req, _ := http.NewRequest(method, ts.URL+"/api/draft", strings.NewReader(string(b)))
		req.Header.Set("Content-Type", ctype)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := send(http.MethodPut, "text/plain", nil); code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain = %d", code)
	}
	if code := send(http.MethodPost, "application/json", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("POST = %d", code)
	}
	// Another site's page cannot write drafts through the browser.
	if code := send(http.MethodPut, "application/json", map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden {
		t.Errorf("cross-origin PUT = %d", code)
	}
	if code := send(http.MethodPut, "application/json", map[string]string{"Sec-Fetch-Site": "cross-site"}); code != http.StatusForbidden {
		t.Errorf("cross-site PUT = %d", code)
	}
	if w := f.writes(); len(w) != 0 {
		t.Fatalf("a refused request reached jp: %+v", w)
	}
	if code := send(http.MethodPut, "application/json", map[string]string{"Sec-Fetch-Site": "same-origin"}); code != http.StatusOK {
		t.Errorf("same-origin PUT = %d", code)
	}
}

// TestSendEmptiesTheDraft: a message that started a turn empties the
// draft it was typed in, at the revision the page saw; a draft changed
// meanwhile, a refused turn, or a request without a revision leave it.
func TestSendEmptiesTheDraft(t *testing.T) {
	f := fixture()
	var streams []*fakeStream
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) {
		st := newFakeStream()
		f.mu.Lock()
		streams = append(streams, st)
		f.mu.Unlock()
		return st, nil
	}
	_, ts := newServer(t, f)
	query := func(rev string) (int, map[string]any) {
		t.Helper()
		body := map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "conversation": draftConv, "content": "Run the tests"}
		if rev != "" {
			body["draft_revision"] = rev
		}
		return postJSON(t, ts, "/api/query", body)
	}

	rev := f.setDraft(draftConv, "Run the tests")
	code, ans := query(rev)
	d := answeredDraft(ans)
	if code != http.StatusOK || ans["turn"] == "" || d["cleared"] != true || d["revision"] == "" {
		t.Fatalf("send = %d %v", code, ans)
	}
	got := f.draft(draftConv)
	if got.Text != "" || got.Revision != d["revision"] {
		t.Fatalf("after the send jp's draft = %+v (answered %v)", got, d)
	}
	if w := f.writes(); len(w) != 1 || w[0] != (draftWrite{refA, draftConv, "", rev}) {
		t.Fatalf("writes = %+v", w)
	}

	// A terminal wrote the draft after the page last saw it: it stays.
	f.setDraft(draftConv, "written in a terminal meanwhile")
	code, ans = query(got.Revision)
	d = answeredDraft(ans)
	if code != http.StatusOK || d["cleared"] != false || d["code"] != codeDraftChanged || !strings.Contains(fmt.Sprint(d["error"]), "left as it is") {
		t.Fatalf("send over a changed draft = %d %v", code, ans)
	}
	if f.draft(draftConv).Text != "written in a terminal meanwhile" {
		t.Fatalf("the terminal's draft was emptied: %+v", f.draft(draftConv))
	}

	// Without draft_revision (a script, or a page that knew no draft) the
	// draft is not touched.
	n := len(f.writes())
	if code, ans = query(""); code != http.StatusOK || ans["draft"] != nil {
		t.Fatalf("send without a revision = %d %v", code, ans)
	}
	if len(f.writes()) != n {
		t.Fatal("a send without a revision wrote the draft")
	}

	sendFailuresKeepTheDraft(t, f, ts, query)

	f.mu.Lock()
	started := len(streams)
	f.mu.Unlock()
	if started != 4 {
		t.Fatalf("%d turns started, want 4", started)
	}
}

// answeredDraft is the "draft" object of an /api/query answer.
func answeredDraft(ans map[string]any) map[string]any {
	d, _ := ans["draft"].(map[string]any)
	return d
}

// sendFailuresKeepTheDraft: jp failing to empty the draft does not undo
// the send, a refused turn keeps the text, a bad draft_revision is refused
// (TestSendEmptiesTheDraft's last steps).
func sendFailuresKeepTheDraft(t *testing.T, f *fakeHost, ts *httptest.Server, query func(rev string) (int, map[string]any)) {
	t.Helper()
	// jp failing to empty it does not undo the send: the page is told.
	rev := f.setDraft(draftConv, "again")
	f.mu.Lock()
	f.draftErr = errors.New("pluginsdk: the connection to jp is closed")
	f.mu.Unlock()
	code, ans := query(rev)
	d := answeredDraft(ans)
	if code != http.StatusOK || d["cleared"] != false || d["code"] != nil || d["error"] != "jp could not empty the draft: pluginsdk: the connection to jp is closed" {
		t.Fatalf("send with a failing draft = %d %v", code, ans)
	}
	f.mu.Lock()
	f.draftErr = nil
	f.mu.Unlock()

	// A refused turn keeps the text in the draft.
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) {
		return nil, plugin.Error{Request: "query", Message: "conversation 17127583920 is locked by another jp"}
	}
	n := len(f.writes())
	if code, ans = query(rev); code != http.StatusConflict || ans["draft"] != nil {
		t.Fatalf("refused send = %d %v", code, ans)
	}
	if len(f.writes()) != n || f.draft(draftConv).Text != "again" {
		t.Fatalf("a refused send touched the draft: %+v", f.draft(draftConv))
	}
	if code, ans = postJSON(t, ts, "/api/query", map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "conversation": draftConv,
		"content": "x", "draft_revision": "r1\x00"}); code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(ans["error"]), "draft_revision: revision is not one jp gave") {
		t.Fatalf("bad draft_revision = %d %v", code, ans)
	}
}
