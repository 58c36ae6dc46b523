package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// withToken is the handler the tests of other features talk to: it adds
// the server's token to requests that carry none, as the page's script
// does. TestAuth talks to the bare handler.
func withToken(s *Server, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			r.Header.Set("Authorization", "Bearer "+s.Token())
		}
		h.ServeHTTP(w, r)
	})
}

// bearer is a client transport that sends a token.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Every page, API and event stream refuses a request without the token
// (401; a page gets the boot page, which holds no data) or with a wrong
// one (403), and answers with it in the Authorization header. A cookie
// or a ?token= carrying the right token is not accepted: the token never
// travels in a cookie (cookies are shared by every port of 127.0.0.1)
// or in an address.
func TestAuth(t *testing.T) {
	f := fixture()
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) { return newFakeStream(), nil }
	s := New(f, func() time.Time { return t0 }, nil)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(s.Token()) {
		t.Fatalf("token %q is not 256 random bits in hex", s.Token())
	}
	if other := New(f, time.Now, nil); other.Token() == s.Token() {
		t.Fatal("two servers have the same token")
	}
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	anon := &http.Client{CheckRedirect: noRedirect}

	query := `{"workspace":"a1b2c3d","root":"/src/a","conversation":"17127583920","content":"x"}`
	draft := `{"workspace":"a1b2c3d","root":"/src/a","conversation":"17127583920","text":"mine","revision":""}`
	all := []authReq{
		{"GET", "/", ""},
		{"GET", "/w/a1b2c3d?root=%2Fsrc%2Fa", ""},
		{"GET", "/w/a1b2c3d/c/17127583920?root=%2Fsrc%2Fa", ""},
		{"POST", "/w/a1b2c3d/new?root=%2Fsrc%2Fa", "title=x"},
		{"PUT", "/api/draft", draft},
		{"POST", "/api/query", query},
		{"GET", "/api/turns/1/events", ""},
		{"POST", "/api/turns/1/interrupt", "{}"},
		{"POST", "/api/turns/1/respond", `{"call_id":"call_0_0","action":"approve"}`},
		{"GET", "/api/watch?workspace=a1b2c3d&root=%2Fsrc%2Fa&conversation=17127583920&after=0", ""},
		{"GET", "/api/meter?workspace=a1b2c3d&root=%2Fsrc%2Fa&conversation=17127583920", ""},
		{"POST", "/api/compact", `{"workspace":"a1b2c3d","root":"/src/a","conversation":"17127583920"}`},
		{"POST", "/api/rewind", `{"workspace":"a1b2c3d","root":"/src/a","conversation":"17127583920","turn":1}`},
		{"GET", "/api/trust?workspace=a1b2c3d&root=%2Fsrc%2Fa", ""},
		{"POST", "/api/trust", `{"workspace":"a1b2c3d","root":"/src/a"}`},
		{"GET", "/nope", ""},
	}
	send := func(c *http.Client, r authReq, auth, cookie string) (int, string) {
		t.Helper()
		return authSend(t, c, ts, r, auth, cookie)
	}
	refusesWithoutToken(t, s, ts, anon, all)
	if f.created != nil || len(f.drafts) != 0 || f.compacts != nil {
		t.Fatalf("a refused request reached jp: created %v, drafts %v", f.created, f.drafts)
	}

	// A page asked for without the token is the boot page: it holds no
	// data, and its script brings the token from the address's fragment.
	code, body := send(anon, all[0], "", "")
	if code != http.StatusUnauthorized || !strings.Contains(body, `<script src="/static/boot.js"></script>`) {
		t.Fatalf("GET / without the token = %d\n%s", code, body)
	}

	// With the bearer token, requests are served.
	if code, body := send(anon, all[0], "Bearer "+s.Token(), ""); code != http.StatusOK || !strings.Contains(body, "proj") {
		t.Fatalf("GET / with the token = %d", code)
	}
	// The static assets hold nothing of the user's: a page's <script> and
	// <link> cannot carry the header, so they are served without it.
	for _, p := range []string{"/static/app.js", "/static/boot.js", "/static/page.js", "/static/live.js", "/static/style.css"} {
		if code, _ := send(anon, authReq{"GET", p, ""}, "", ""); code != http.StatusOK {
			t.Errorf("GET %s without the token = %d", p, code)
		}
	}
	if code, _ := send(anon, authReq{"POST", "/static/app.js", ""}, "", ""); code == http.StatusOK {
		t.Errorf("POST /static/app.js without the token = %d", code)
	}

	// The printed address carries the token in its fragment, which a
	// browser sends to no server.
	if got, want := s.URL(ts.URL+"/"), ts.URL+"/#token="+s.Token(); got != want {
		t.Fatalf("URL = %q, want %q", got, want)
	}

	turnIDsAreRandom(t, s, ts, anon, query)
}

// authReq is one request TestAuth sends.
type authReq struct{ method, path, body string }

// authSend sends r to ts with the given Authorization and Cookie headers
// (empty: none), and fails the test if the answer sets a cookie.
func authSend(t *testing.T, c *http.Client, ts *httptest.Server, r authReq, auth, cookie string) (int, string) {
	t.Helper()
	hr, _ := http.NewRequest(r.method, ts.URL+r.path, strings.NewReader(r.body))
	if r.method != "GET" {
		if r.body == "title=x" {
			hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			hr.Header.Set("Content-Type", "application/json")
		}
	}
	if auth != "" {
		hr.Header.Set("Authorization", auth)
	}
	if cookie != "" {
		hr.Header.Set("Cookie", cookie)
	}
	resp, err := c.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if len(resp.Cookies()) > 0 {
		t.Errorf("%s %s set cookies %v", r.method, r.path, resp.Cookies())
	}
	return resp.StatusCode, string(b)
}

// refusesWithoutToken: every request in all is refused with 401 and no
// data without the token (or with it only in a cookie or the query), and
// with 403 for a wrong one.
func refusesWithoutToken(t *testing.T, s *Server, ts *httptest.Server, anon *http.Client, all []authReq) {
	t.Helper()
	send := func(c *http.Client, r authReq, auth, cookie string) (int, string) {
		t.Helper()
		return authSend(t, c, ts, r, auth, cookie)
	}
	port := ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
	for _, r := range all {
		// Without a token; with only a cookie holding the right token (as
		// the old server set it, or under any name); with it in the query.
		withQuery := r
		withQuery.path += map[bool]string{true: "&", false: "?"}[strings.Contains(r.path, "?")] + "token=" + s.Token()
		for _, try := range []struct {
			what   string
			r      authReq
			cookie string
		}{
			{"no token", r, ""},
			{"only a cookie", r, "jp_serve_web_" + port + "=" + s.Token()},
			{"only cookies", r, "token=" + s.Token() + "; jp_token=" + s.Token()},
			{"the token in the query", withQuery, ""},
		} {
			code, body := send(anon, try.r, "", try.cookie)
			if code != http.StatusUnauthorized || !strings.Contains(body, "needs its token") || strings.Contains(body, "proj") || strings.Contains(body, "/src/a") {
				t.Errorf("%s %s with %s = %d %q, want 401 and no data", try.r.method, try.r.path, try.what, code, body)
			}
		}
		for _, bad := range []string{"Bearer " + strings.Repeat("0", 64), "Bearer " + s.Token()[:63], "Basic " + s.Token(), s.Token()} {
			if code, _ := send(anon, r, bad, ""); code != http.StatusForbidden {
				t.Errorf("%s %s with %q = %d, want 403", r.method, r.path, bad, code)
			}
		}
	}
}

// turnIDsAreRandom: turn IDs are random, not sequential.
func turnIDsAreRandom(t *testing.T, s *Server, ts *httptest.Server, anon *http.Client, query string) {
	t.Helper()
	ids := map[string]bool{}
	for i := 0; i < 2; i++ {
		conv := []string{"17127583920", "17127583921"}[i]
		hr, _ := http.NewRequest("POST", ts.URL+"/api/query", strings.NewReader(strings.Replace(query, "17127583920", conv, 1)))
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Authorization", "Bearer "+s.Token())
		resp, err := anon.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m := regexp.MustCompile(`"turn":"([^"]*)"`).FindStringSubmatch(string(b))
		if resp.StatusCode != http.StatusOK || m == nil || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(m[1]) {
			t.Fatalf("query = %d %s: want a 128-bit random turn ID", resp.StatusCode, b)
		}
		ids[m[1]] = true
	}
	if len(ids) != 2 {
		t.Fatalf("turn IDs repeat: %v", ids)
	}
}
