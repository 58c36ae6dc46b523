package main

import (
	"net"

	"github.com/rogpeppe/go-internal/testscript"
)

// deadport VAR sets VAR to http://ADDR for a local address where nothing
// listens (a port bound, then released).
func cmdDeadPort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: deadport VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	addr := l.Addr().String()
	ts.Check(l.Close())
	ts.Setenv(args[0], "http://"+addr)
}
