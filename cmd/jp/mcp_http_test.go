package main

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/jpcli/jp/adapters/mcp/mcptest"
)

// cmdMCPHTTP is the testscript command `mcphttp VAR`: it starts
// server-everything in its Streamable HTTP mode on a free loopback port,
// waits until it says it listens, sets VAR to its endpoint
// (http://127.0.0.1:PORT/mcp), and stops it when the script ends.
func cmdMCPHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mcphttp VAR")
	}
	bin, err := exec.LookPath("mcp-server-everything")
	if err != nil {
		ts.Fatalf("mcp-server-everything is not installed (run .ci/install-deps): %v", err)
	}
	// The server takes its port from $PORT and cannot report one it was
	// given as 0, so pick a free port, and try again should another
	// process take it first.
	var last string
	for range 5 {
		port := freePort(ts)
		cmd := exec.Command(bin, "streamableHttp")
		cmd.Env = append(cmd.Environ(), "PORT="+strconv.Itoa(port))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		stderr, err := cmd.StderrPipe()
		ts.Check(err)
		ts.Check(cmd.Start())
		ready := make(chan bool, 1)
		var lines []string
		go func() {
			sc := bufio.NewScanner(stderr)
			ok := false
			for sc.Scan() {
				if !ok {
					lines = append(lines, sc.Text())
				}
				if !ok && strings.Contains(sc.Text(), "listening on port") {
					ok = true
					ready <- true
				}
			}
			if !ok {
				ready <- false
			}
		}()
		if <-ready {
			ts.Defer(func() {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				_ = cmd.Wait()
			})
			ts.Setenv(args[0], fmt.Sprintf("http://127.0.0.1:%d/mcp", port))
			return
		}
		_ = cmd.Wait()
		last = strings.Join(lines, "\n")
	}
	ts.Fatalf("server-everything did not start in its Streamable HTTP mode:\n%s", last)
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort(ts *testscript.TestScript) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// cmdOAuthMCP is the testscript command `oauthmcp VAR`: it starts an
// OAuth-protected MCP server (adapters/mcp/mcptest, its own authorization
// server, with an echo tool), sets VAR to its MCP endpoint, and stops it
// when the script ends.
func cmdOAuthMCP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: oauthmcp VAR")
	}
	srv := mcptest.NewOAuthServer(time.Hour)
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL+"/mcp")
}
