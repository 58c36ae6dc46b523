package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/plugin"
)

// fakeJP plays jp's side of the protocol for run.
type fakeJP struct {
	t    *testing.T
	w    *io.PipeWriter
	r    *bufio.Reader
	code chan int
}

func startPlugin(t *testing.T, options string) *fakeJP {
	t.Helper()
	m, err := plugin.ParseManifest(manifestJSON)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := &fakeJP{t: t, w: inW, r: bufio.NewReader(outR), code: make(chan int, 1)}
	go func() {
		code := pluginsdk.Run(context.Background(), inR, outW, io.Discard, m, run)
		_ = outW.Close()
		f.code <- code
	}()
	f.send(`{"type":"init","version":2,"options":` + options + `,"args":[],"log_level":1,"output_format":"text","paths":{"user_data":"/d","user_config":"/c"}}`)
	if msg := f.recv(); msg["type"] != "ready" {
		t.Fatalf("first message = %v", msg)
	}
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return f
}

func (f *fakeJP) send(line string) {
	f.t.Helper()
	if _, err := io.WriteString(f.w, line+"\n"); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeJP) recv() map[string]any {
	f.t.Helper()
	line, err := f.r.ReadString('\n')
	if err != nil {
		f.t.Fatalf("read from the plugin: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		f.t.Fatalf("plugin sent %q: %v", line, err)
	}
	return m
}

// exit reads messages up to the exit and returns it; jp then closes.
func (f *fakeJP) exit() (map[string]any, int) {
	f.t.Helper()
	for {
		m := f.recv()
		if m["type"] == "exit" {
			_ = f.w.Close()
			go func() { _, _ = io.Copy(io.Discard, f.r) }()
			return m, <-f.code
		}
	}
}

func TestRunRefusesBadOptions(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := startPlugin(t, `{"port":"web"}`)
	m, code := f.exit()
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
	m, code := f.exit()
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
	pr := f.recv()
	url := regexp.MustCompile(`^jp serve web: (http://127\.0\.0\.1:\d+/)\n$`).FindStringSubmatch(fmt.Sprint(pr["text"]))
	if pr["type"] != "print" || url == nil {
		t.Fatalf("first output = %v", pr)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	page := make(chan string, 1)
	go func() {
		resp, err := client.Get(url[1])
		if err != nil {
			page <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		page <- string(b)
	}()
	for {
		m := f.recv()
		if m["type"] == "log" {
			continue
		}
		if m["type"] != "list_workspaces" || m["workspace"] != nil {
			t.Fatalf("request = %v", m)
		}
		f.send(fmt.Sprintf(`{"type":"workspaces","id":%q,"data":[{"id":"a1b2c3d","slug":"proj","launch":true,"roots":[{"path":"/src/proj","storage":"/src/proj/.jp","last_used":"2026-09-26T09:14:00Z"}]}]}`, m["id"]))
		break
	}
	if got := <-page; !strings.Contains(got, "proj") || !strings.Contains(got, "/src/proj") || !strings.Contains(got, "launched here") {
		t.Fatalf("page = %s", got)
	}
	f.send(`{"type":"shutdown"}`)
	m, code := f.exit()
	if code != 0 || m["code"] != float64(0) {
		t.Fatalf("exit %d %v", code, m)
	}
	if _, err := client.Get(url[1]); err == nil {
		t.Fatal("still serving after shutdown")
	}
	client.CloseIdleConnections()
}
