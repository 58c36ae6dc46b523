package main

import (
	"net/http"
	"net/http/httptest"

	"github.com/rogpeppe/go-internal/testscript"
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
