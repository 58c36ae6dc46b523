package builtintools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/domain/config"
)

// fetchServer enables web_fetch with tool settings t; allow admits
// these test servers' addresses (each is on 127.0.0.1, which web_fetch
// refuses otherwise).
func fetchServer(t *testing.T, tool config.Tool, allow ...*httptest.Server) *Server {
	t.Helper()
	s := server(t, t.TempDir(), map[string]config.Tool{WebFetch: tool})
	ok := map[string]bool{}
	for _, a := range allow {
		ok[strings.TrimPrefix(a.URL, "http://")] = true
	}
	s.fetchAllow = func(hostport string) bool { return ok[hostport] }
	return s
}

func TestWebFetchConvertsHTMLAndNamesTheFinalURL(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/page", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>T</title></head><body><h1>Title</h1><p>Hello <b>web</b>, see <a href="/x">the link</a>.</p><ul><li>one</li></ul></body></html>`)
	}))
	defer srv.Close()
	r := call(t, fetchServer(t, config.Tool{}, srv), WebFetch, map[string]any{"url": srv.URL + "/start"})
	if r.IsError {
		t.Fatalf("error: %s", r.Content)
	}
	for _, want := range []string{"URL: " + srv.URL + "/page\n", "Status: 200 OK", "Content-Type: text/html", "# Title", "Hello **web**", "[the link](" + srv.URL + "/x)", "- one"} {
		if !strings.Contains(r.Content, want) {
			t.Errorf("missing %q in:\n%s", want, r.Content)
		}
	}
	if strings.Contains(r.Content, "<p>") {
		t.Errorf("HTML left in:\n%s", r.Content)
	}
}

func TestWebFetchRefusesARedirectToLoopback(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	hit := make(chan struct{}, 1)
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit <- struct{}{}
		fmt.Fprint(w, "secret")
	}))
	defer inner.Close()
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/admin", http.StatusFound)
	}))
	defer outer.Close()
	// Only the first hop is allowed: the redirect's address (127.0.0.1,
	// another port) is checked when it is dialled, and refused.
	r := call(t, fetchServer(t, config.Tool{}, outer), WebFetch, map[string]any{"url": outer.URL})
	if !r.IsError || !strings.Contains(r.Content, "127.0.0.1 is a loopback, link-local or private address") || strings.Contains(r.Content, "secret") {
		t.Fatalf("want a refusal, got %v: %s", r.IsError, r.Content)
	}
	select {
	case <-hit:
		t.Fatal("the loopback server was reached")
	default:
	}
	// A name that resolves to loopback is refused on the address dialled.
	port := inner.URL[strings.LastIndex(inner.URL, ":")+1:]
	r = call(t, fetchServer(t, config.Tool{}), WebFetch, map[string]any{"url": "http://localhost:" + port + "/"})
	if !r.IsError || !strings.Contains(r.Content, "is a loopback, link-local or private address") {
		t.Fatalf("localhost: want a refusal, got %s", r.Content)
	}
	// allow_private = true reaches it.
	r = call(t, fetchServer(t, config.Tool{AllowPrivate: true}), WebFetch, map[string]any{"url": inner.URL})
	if r.IsError || !strings.Contains(r.Content, "secret") {
		t.Fatalf("allow_private: %s", r.Content)
	}
}

func TestWebFetchStopsAfterFiveRedirects(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var n int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		http.Redirect(w, r, fmt.Sprintf("/r%d", n), http.StatusFound)
	}))
	defer srv.Close()
	r := call(t, fetchServer(t, config.Tool{}, srv), WebFetch, map[string]any{"url": srv.URL})
	if !r.IsError || !strings.Contains(r.Content, "more than 5 redirects") {
		t.Fatalf("want a redirect limit, got %s", r.Content)
	}
	if n != 6 {
		t.Fatalf("requests = %d, want 6 (the first and 5 redirects)", n)
	}
}

func TestWebFetchSizeAndTimeLimits(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("a", 1000))
		case "/slow":
			<-r.Context().Done() // answers nothing until the client gives up
		case "/bin":
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write([]byte{0, 1, 2})
		}
	}))
	defer srv.Close()
	s := fetchServer(t, config.Tool{MaxBytes: 100, TimeoutSecs: 1}, srv)
	r := call(t, s, WebFetch, map[string]any{"url": srv.URL + "/big"})
	if r.IsError || !strings.Contains(r.Content, "\n\n"+strings.Repeat("a", 100)+"\n[… cut at 100 bytes") || strings.Contains(r.Content, strings.Repeat("a", 101)) {
		t.Fatalf("size limit: %s", r.Content)
	}
	r = call(t, s, WebFetch, map[string]any{"url": srv.URL + "/slow"})
	if !r.IsError || !strings.Contains(r.Content, "no answer within 1s (the timeout)") {
		t.Fatalf("timeout: %s", r.Content)
	}
	r = call(t, s, WebFetch, map[string]any{"url": srv.URL + "/bin"})
	if !r.IsError || !strings.Contains(r.Content, "application/octet-stream, not text") {
		t.Fatalf("binary: %s", r.Content)
	}
	for _, bad := range []string{"file:///etc/passwd", "ftp://x/", "/relative", "http://user:pw@example.com/"} {
		r = call(t, s, WebFetch, map[string]any{"url": bad})
		if !r.IsError {
			t.Fatalf("%s: want a refusal, got %s", bad, r.Content)
		}
	}
}
