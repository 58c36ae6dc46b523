package web

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// withToken is the handler the tests of other features talk to: it adds
// the server's token to requests that carry none, as the browser's cookie
// would. TestAuth talks to the bare handler.
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

// Every page, asset, API and event stream refuses a request without the
// token (401) or with a wrong one (403), and answers with it.
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
	type req struct{ method, path, body string }
	all := []req{
		{"GET", "/", ""},
		{"GET", "/w/a1b2c3d?root=%2Fsrc%2Fa", ""},
		{"GET", "/w/a1b2c3d/c/17127583920?root=%2Fsrc%2Fa", ""},
		{"POST", "/w/a1b2c3d/new?root=%2Fsrc%2Fa", "title=x"},
		{"PUT", "/api/draft", draft},
		{"POST", "/api/query", query},
		{"GET", "/api/turns/1/events", ""},
		{"POST", "/api/turns/1/interrupt", "{}"},
		{"POST", "/api/turns/1/respond", `{"call_id":"call_0_0","action":"approve"}`},
		{"GET", "/static/app.js", ""},
		{"GET", "/nope", ""},
	}
	send := func(c *http.Client, r req, auth, cookie string) (int, string) {
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
		return resp.StatusCode, string(b)
	}
	name := cookieName(strings.TrimPrefix(ts.URL, "http://"))
	for _, r := range all {
		if code, body := send(anon, r, "", ""); code != http.StatusUnauthorized || !strings.Contains(body, "needs its token") {
			t.Errorf("%s %s without a token = %d %q, want 401", r.method, r.path, code, body)
		}
		for _, bad := range []struct{ auth, cookie string }{
			{"Bearer " + strings.Repeat("0", 64), ""},
			{"Bearer " + s.Token()[:63], ""},
			{"Basic " + s.Token(), ""},
			{"", name + "=" + strings.Repeat("f", 64)},
		} {
			if code, _ := send(anon, r, bad.auth, bad.cookie); code != http.StatusForbidden {
				t.Errorf("%s %s with %+v = %d, want 403", r.method, r.path, bad, code)
			}
		}
		wrongQ := r
		wrongQ.path += map[bool]string{true: "&", false: "?"}[strings.Contains(r.path, "?")] + "token=" + strings.Repeat("1", 64)
		if code, _ := send(anon, wrongQ, "", ""); code != http.StatusForbidden {
			t.Errorf("%s %s = %d, want 403", wrongQ.method, wrongQ.path, code)
		}
	}
	if f.created != nil || len(f.drafts) != 0 {
		t.Fatalf("a refused request reached jp: created %v, drafts %v", f.created, f.drafts)
	}

	// With the bearer token, requests are served.
	if code, body := send(anon, all[0], "Bearer "+s.Token(), ""); code != http.StatusOK || !strings.Contains(body, "proj") {
		t.Fatalf("GET / with the token = %d", code)
	}
	if code, _ := send(anon, all[9], "Bearer "+s.Token(), ""); code != http.StatusOK {
		t.Fatalf("GET /static/app.js with the token = %d", code)
	}

	// The printed address: ?token= once sets an HttpOnly, SameSite=Strict
	// cookie and redirects to the address without it.
	resp, err := anon.Get(s.URL(ts.URL + "/"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("GET /?token= = %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 || cookies[0].Name != name || cookies[0].Value != s.Token() || !cookies[0].HttpOnly ||
		cookies[0].SameSite != http.SameSiteStrictMode || cookies[0].Path != "/" {
		t.Fatalf("cookie = %+v", cookies)
	}
	if code, _ := send(anon, all[0], "", name+"="+s.Token()); code != http.StatusOK {
		t.Fatalf("GET / with the cookie = %d", code)
	}
	// A browser following the printed address ends on the page.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err = browser.Get(s.URL(ts.URL+"/w/a1b2c3d") + "&root=%2Fsrc%2Fa")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Contains(resp.Request.URL.RawQuery, "token") || !strings.Contains(string(b), "Refactor config") && !strings.Contains(string(b), "conversation") {
		t.Fatalf("followed the token address: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	// The redirect never leaves the site.
	resp, err = anon.Get(ts.URL + "//evil.example/x?token=" + s.Token())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
		t.Fatalf("redirect to %q", loc)
	}

	// Turn IDs are random, not sequential.
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

func TestCookieNamePerPort(t *testing.T) {
	if a, b := cookieName("127.0.0.1:3141"), cookieName("localhost:8080"); a != "jp_serve_web_3141" || b != "jp_serve_web_8080" {
		t.Fatalf("cookie names %q, %q", a, b)
	}
}
