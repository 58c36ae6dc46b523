// Package web is jp serve web: an HTTP server on 127.0.0.1 that shows
// every workspace jp knows, their checkouts and conversations, and runs
// delegated turns from the browser, streaming their answers with
// server-sent events. It talks to jp through Host (the plugin SDK's
// client in production, a fake in tests). See docs/web.md.
package web

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

//go:embed assets
var assets embed.FS

// bootHTML is the page a browser gets before it sent the token (auth.go).
//
//go:embed assets/boot.html
var bootHTML []byte

// Server serves the pages and the API. Make it with New; Serve runs it
// until its context ends; Close stops the turns it follows when Serve is
// not used (tests driving Handler directly).
type Server struct {
	host  Host
	token string // see auth.go
	now   func() time.Time
	log   func(string)

	pages     map[string]*template.Template
	fragments *template.Template
	static    http.Handler

	turns *turnHub

	quitOnce sync.Once
	quit     chan struct{} // closed at shutdown: event streams end

	mu    sync.Mutex
	hosts map[string]bool // Host headers accepted (DNS rebinding guard); nil: any
}

// New makes a server that asks h. now is the clock for relative times;
// logf, when not nil, receives one line per request that failed on jp's
// side.
func New(h Host, now func() time.Time, logf func(string)) *Server {
	if logf == nil {
		logf = func(string) {}
	}
	s := &Server{host: h, token: newSecret(tokenBytes), now: now, log: logf, quit: make(chan struct{})}
	s.turns = newTurnHub()
	funcs := template.FuncMap{
		"ago":    s.ago,
		"stamp":  stamp,
		"iso":    func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"usable": usable,
	}
	s.fragments = template.Must(template.New("").Funcs(funcs).ParseFS(assets, "assets/fragments.html"))
	s.pages = map[string]*template.Template{}
	for _, p := range []string{"workspaces", "conversations", "conversation", "problem"} {
		t := template.Must(template.Must(s.fragments.Clone()).ParseFS(assets, "assets/layout.html", "assets/"+p+".html"))
		s.pages[p] = t
	}
	static, err := fs.Sub(assets, "assets/static")
	if err != nil {
		panic(err)
	}
	s.static = http.StripPrefix("/static/", http.FileServerFS(static))
	return s
}

// Handler returns the routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.workspacesPage)
	mux.HandleFunc("GET /w/{ws}", s.conversationsPage)
	mux.HandleFunc("POST /w/{ws}/new", s.newConversation)
	mux.HandleFunc("GET /w/{ws}/c/{conv}", s.conversationPage)
	mux.HandleFunc("PUT /api/draft", s.apiDraft)
	mux.HandleFunc("POST /api/query", s.apiQuery)
	mux.HandleFunc("GET /api/turns/{turn}/events", s.apiTurnEvents)
	mux.HandleFunc("POST /api/turns/{turn}/interrupt", s.apiInterrupt)
	mux.HandleFunc("POST /api/turns/{turn}/respond", s.apiRespond)
	mux.HandleFunc("GET /api/watch", s.apiWatch)
	mux.HandleFunc("GET /api/meter", s.apiMeter)
	mux.HandleFunc("POST /api/compact", s.apiCompact)
	mux.HandleFunc("POST /api/rewind", s.apiRewind)
	mux.HandleFunc("GET /api/trust", s.apiTrustState)
	mux.HandleFunc("POST /api/trust", s.apiTrust)
	mux.Handle("GET /static/", s.static)
	return s.guard(mux)
}

// guard refuses requests for another host name (a DNS rebinding page
// would send its own), requests without the server's token (any other
// local user or process can connect to the port: auth.go) but for the
// static assets, and cross-site POSTs and PUTs.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		hosts := s.hosts
		s.mu.Unlock()
		if hosts != nil && !hosts[strings.ToLower(r.Host)] {
			http.Error(w, "jp serve web answers only on 127.0.0.1 and localhost", http.StatusMisdirectedRequest)
			return
		}
		if !public(r) && !s.authorize(w, r) {
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !sameOrigin(r) {
			http.Error(w, "cross-origin requests are refused", http.StatusForbidden)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "same-origin")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
		next.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether a state-changing request comes from this
// server's own pages: the browser's Sec-Fetch-Site says so when it sends
// one; otherwise an Origin, when present, must be this host. (Clients
// that are not browsers send neither.)
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
	default:
		return false
	}
	o := r.Header.Get("Origin")
	return o == "" || o == "http://"+r.Host
}

// Serve answers on ln until ctx ends, then closes the event streams,
// stops following turns and shuts the HTTP server down. It returns nil
// after a shutdown, or why serving failed.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		port := fmt.Sprint(a.Port)
		s.mu.Lock()
		s.hosts = map[string]bool{"127.0.0.1:" + port: true, "localhost:" + port: true}
		s.mu.Unlock()
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
		served <- err
	}
	s.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil && err == nil {
		err = fmt.Errorf("shut down the web server: %w", serr)
	}
	if e := <-served; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}

// Close ends the event streams and stops following turns (waiting for
// the goroutines that did). Idempotent.
func (s *Server) Close() {
	s.quitOnce.Do(func() { close(s.quit) })
	s.turns.stop()
}

// ago says how long ago t was, for people.
func (s *Server) ago(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := s.now().Sub(t)
	switch {
	case d < time.Minute: // or in the future
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	case d < 30*24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day") + " ago"
	}
	return "on " + t.Local().Format("2006-01-02")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// stamp is an absolute time for a title attribute.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04:05 MST")
}
