package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/jpcli/jp/internal/testkit"
)

// httpserve VAR DIR serves DIR over http on a loopback port until the
// script ends, and sets VAR to its base URL.
func cmdHTTPServe(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: httpserve VAR DIR")
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(ts.MkAbs(args[1]))))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}

// cmdGHServe starts a server replaying the recorded GitHub REST API
// responses of adapters/attach/testdata/github; VAR is its URL. Each
// request's path and Authorization header are appended to LOG.
func cmdGHServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: ghserve VAR LOG")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "adapters", "attach", "testdata", "github"))
	ts.Check(err)
	replay := &testkit.GitHubReplay{Dir: dir}
	log := ts.MkAbs(args[1])
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		f, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s\n", r.URL.Path, r.Header.Get("Authorization"))
			_ = f.Close()
		}
		mu.Unlock()
		replay.ServeHTTP(w, r)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}
