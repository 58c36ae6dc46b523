package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/pluginsdk/plugintest"
	"github.com/jpcli/jp/domain/plugin"
)

// printedURL is the line jp serve web prints: its address with the token.
var printedURL = regexp.MustCompile(`^jp serve web: (http://127\.0\.0\.1:\d+/)#token=([0-9a-f]{64})\n$`)

// startPlugin runs the plugin against a fake jp that sends init with
// options, and waits for ready.
func startPlugin(t *testing.T, options string) *plugintest.FakeJP {
	t.Helper()
	m, err := plugin.ParseManifest(manifestJSON)
	if err != nil {
		t.Fatal(err)
	}
	f := plugintest.Start(t, m, `{"type":"init","version":2,"options":`+options+`,"args":[],"log_level":1,"output_format":"text","paths":{"user_data":"/d","user_config":"/c"}}`, run)
	if msg := f.Recv(); msg["type"] != "ready" {
		t.Fatalf("first message = %v", msg)
	}
	return f
}

func TestRunRefusesBadOptions(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := startPlugin(t, `{"port":"web"}`)
	m, code := f.Exit()
	if code != 2 || m["reason"] != `plugins.command.serve-web.options.port must be a port number (0-65535), not "web"` {
		t.Fatalf("exit %d %v", code, m)
	}
}

func TestRunPortInUse(t *testing.T) {
	defer goleak.VerifyNone(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	f := startPlugin(t, fmt.Sprintf(`{"port":%d}`, port))
	m, code := f.Exit()
	want := fmt.Sprintf("cannot serve on 127.0.0.1:%d: the port is in use (another jp serve web?): stop that server, or set plugins.command.serve-web.options.port to a free port", port)
	if code != 1 || m["reason"] != want {
		t.Fatalf("exit %d %v", code, m)
	}
}

// TestRunServesUntilShutdown: run prints its URL, answers a page from
// what jp lists, and on shutdown stops serving and exits 0.
func TestRunServesUntilShutdown(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := startPlugin(t, `{"port":0}`)
	pr := f.Recv()
	url := printedURL.FindStringSubmatch(fmt.Sprint(pr["text"]))
	if pr["type"] != "print" || url == nil {
		t.Fatalf("first output = %v", pr)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	page := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, url[1], nil)
		req.Header.Set("Authorization", "Bearer "+url[2])
		resp, err := client.Do(req)
		if err != nil {
			page <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		page <- string(b)
	}()
	for {
		m := f.Recv()
		if m["type"] == "log" {
			continue
		}
		if m["type"] != "list_workspaces" || m["workspace"] != nil {
			t.Fatalf("request = %v", m)
		}
		f.Send(fmt.Sprintf(`{"type":"workspaces","id":%q,"data":[{"id":"a1b2c3d","slug":"proj","launch":true,"roots":[{"path":"/src/proj","storage":"/src/proj/.jp","last_used":"2026-09-26T09:14:00Z"}]}]}`, m["id"]))
		break
	}
	if got := <-page; !strings.Contains(got, "proj") || !strings.Contains(got, "/src/proj") || !strings.Contains(got, "launched here") {
		t.Fatalf("page = %s", got)
	}
	// Without the token: 401, and nothing reaches jp
	// (the fake jp would fail on an unexpected request at exit).
	anon := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := anon.Get(url[1]); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET without the token = %v, %v", resp, err)
	} else {
		resp.Body.Close()
	}
	f.Send(`{"type":"shutdown"}`)
	m, code := f.Exit()
	if code != 0 || m["code"] != float64(0) {
		t.Fatalf("exit %d %v", code, m)
	}
	if _, err := client.Get(url[1]); err == nil {
		t.Fatal("still serving after shutdown")
	}
	client.CloseIdleConnections()
}

// TestDraftRequestsAreAddressed: a save of the message box reaches jp as
// read_draft and write_draft addressed to the checkout the page names,
// and jp's revision comes back to the page.
func TestDraftRequestsAreAddressed(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := startPlugin(t, `{"port":0}`)
	pr := f.Recv()
	url := printedURL.FindStringSubmatch(fmt.Sprint(pr["text"]))
	if url == nil {
		t.Fatalf("first output = %v", pr)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	answer := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPut, url[1]+"api/draft",
			strings.NewReader(`{"workspace":"a1b2c3d","root":"/src/proj-wt","conversation":"17127583920","text":"Run the tests.","revision":""}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+url[2])
		resp, err := client.Do(req)
		if err != nil {
			answer <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answer <- fmt.Sprint(resp.StatusCode, " ", strings.TrimSpace(string(b)))
	}()
	next := func() map[string]any {
		for {
			if m := f.Recv(); m["type"] != "log" {
				return m
			}
		}
	}
	wantRef := map[string]any{"id": "a1b2c3d", "root": "/src/proj-wt"}
	m := next()
	if m["type"] != "read_draft" || fmt.Sprint(m["workspace"]) != fmt.Sprint(wantRef) || m["conversation"] != "17127583920" {
		t.Fatalf("first request = %v", m)
	}
	f.Send(fmt.Sprintf(`{"type":"draft","id":%q,"conversation":"17127583920","text":"","revision":""}`, m["id"]))
	m = next()
	if m["type"] != "write_draft" || fmt.Sprint(m["workspace"]) != fmt.Sprint(wantRef) || m["conversation"] != "17127583920" ||
		m["text"] != "Run the tests." || m["revision"] != nil {
		t.Fatalf("second request = %v", m)
	}
	f.Send(fmt.Sprintf(`{"type":"draft_written","id":%q,"revision":"r-91c0"}`, m["id"]))
	if got := <-answer; got != `200 {"revision":"r-91c0"}` {
		t.Fatalf("answer = %s", got)
	}
	f.Send(`{"type":"shutdown"}`)
	if _, code := f.Exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	client.CloseIdleConnections()
}

// TestRunServesOnUnixSocket: with options.socket the server listens on a
// Unix socket of mode 0600 (and on no TCP port), still behind the token.
func TestRunServesOnUnixSocket(t *testing.T) {
	defer goleak.VerifyNone(t)
	path := filepath.Join(t.TempDir(), "web.sock")
	f := startPlugin(t, fmt.Sprintf(`{"socket":%q}`, path))
	pr := f.Recv()
	m := regexp.MustCompile(`^jp serve web: on the Unix socket (.*) \(mode 0600\); send Authorization: Bearer ([0-9a-f]{64})\n$`).FindStringSubmatch(fmt.Sprint(pr["text"]))
	if m == nil || m[1] != path {
		t.Fatalf("first output = %v", pr)
	}
	if lg := f.Recv(); lg["type"] != "log" || strings.Contains(fmt.Sprint(lg), m[2]) {
		t.Fatalf("second message = %v (want the log line, without the token)", lg)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v, %v: want mode 0600", fi.Mode(), err)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		}}}
	for _, tc := range []struct {
		auth string
		code int
	}{{"", http.StatusUnauthorized}, {"Bearer " + strings.Repeat("0", 64), http.StatusForbidden}, {"Bearer " + m[2], http.StatusNotFound}} {
		// With the token, the request passes the guard (to no route).
		req, _ := http.NewRequest(http.MethodGet, "http://jp/api/nope", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != tc.code {
			t.Fatalf("GET with %q = %v, %v; want %d", tc.auth, resp, err, tc.code)
		}
		resp.Body.Close()
	}
	f.Send(`{"type":"shutdown"}`)
	if _, code := f.Exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	client.CloseIdleConnections()
}

func TestRunRefusesASocketPathInUse(t *testing.T) {
	defer goleak.VerifyNone(t)
	path := filepath.Join(t.TempDir(), "not-a-socket")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := startPlugin(t, fmt.Sprintf(`{"socket":%q}`, path))
	m, code := f.Exit()
	if code != 1 || !strings.Contains(fmt.Sprint(m["reason"]), "exists and is not a socket") {
		t.Fatalf("exit %d %v", code, m)
	}
	if b, _ := os.ReadFile(path); string(b) != "x" {
		t.Fatal("the file at the socket path was changed")
	}
}

// TestHelpDescribesTheToken: jp serve web --help shows the manifest's
// help, which must say how the server is protected (its token), not that
// it has no authentication.
func TestHelpDescribesTheToken(t *testing.T) {
	m, err := plugin.ParseManifest(manifestJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"no authentication", "anyone who can\nreach that port"} {
		if strings.Contains(m.Help, bad) {
			t.Errorf("help says %q:\n%s", bad, m.Help)
		}
	}
	for _, want := range []string{"127.0.0.1 only", "token", "new random one at every start", "Authorization: Bearer"} {
		if !strings.Contains(m.Help, want) {
			t.Errorf("help lacks %q:\n%s", want, m.Help)
		}
	}
}
