package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"

	"github.com/jpcli/jp/adapters/llm/llmcontract"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdReplayErr starts a server answering every request with HTTP 400 and
// a provider's recorded error body (a file of the repository, its comment
// header dropped: adapters/llm/<provider>/testdata/...), sets VAR to its
// URL, and appends one line per request to LOG.
//
//	replayerr VAR LOG FIXTURE
func cmdReplayErr(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replayerr VAR LOG FIXTURE")
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(args[2])))
	ts.Check(err)
	body := llmcontract.StripHeader(string(raw))
	log := ts.MkAbs(args[1])
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if f, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s %s\n", r.Method, r.URL.Path)
			_ = f.Close()
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(body))
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}
