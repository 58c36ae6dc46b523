package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// recorder VAR LOG starts an HTTP server that appends one line per request
// to LOG (method, path, and the Authorization, X-Api-Key and Cookie
// headers), answers 500, and sets VAR to its URL: what a checkout's
// configuration could send somewhere shows up in LOG.
func cmdRecorder(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: recorder VAR LOG")
	}
	log := ts.MkAbs(args[1])
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s authorization=%q x-api-key=%q cookie=%q\n", r.Method, r.URL.Path,
				r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), strings.Join(r.Header.Values("Cookie"), ";"))
			_ = f.Close()
		}
		http.Error(w, "recorded", http.StatusInternalServerError)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}
