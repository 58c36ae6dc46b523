package pluginsdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/plugin"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var manifest = plugin.Manifest{Name: "demo", Version: "1.0.0", Description: "A demo", Command: []string{"demo"}, ProtocolVersion: 2}

// fakeJP is jp's side of the pipes, driven by a test.
type fakeJP struct {
	t    *testing.T
	w    *io.PipeWriter
	r    *bufio.Reader
	code chan int
}

// start runs fn as a plugin against a fake jp, which sends first.
func start(t *testing.T, first string, fn pluginsdk.RunFunc) *fakeJP {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := &fakeJP{t: t, w: inW, r: bufio.NewReader(outR), code: make(chan int, 1)}
	go func() {
		code := pluginsdk.Run(context.Background(), inR, outW, io.Discard, manifest, fn)
		_ = outW.Close()
		f.code <- code
	}()
	f.send(first)
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return f
}

func (f *fakeJP) send(line string) {
	f.t.Helper()
	if _, err := io.WriteString(f.w, line+"\n"); err != nil {
		f.t.Fatal(err)
	}
}

// recv reads one message from the plugin.
func (f *fakeJP) recv() map[string]any {
	f.t.Helper()
	line, err := f.r.ReadString('\n')
	if err != nil {
		f.t.Fatalf("read from plugin: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		f.t.Fatalf("plugin sent %q: %v", line, err)
	}
	return m
}

// end closes jp's side after the plugin's exit and returns its code.
func (f *fakeJP) end() int {
	_ = f.w.Close()
	go func() { _, _ = io.Copy(io.Discard, f.r) }() // what the plugin still sends
	return <-f.code
}

const initLine = `{"type":"init","version":2,"options":{},"args":["--days","3"],"log_level":1,"output_format":"text","paths":{"user_data":"/d","user_config":"/c"}}`

func TestDescribe(t *testing.T) {
	f := start(t, `{"type":"describe"}`, func(context.Context, *pluginsdk.Client) error {
		t.Error("run must not be called for describe")
		return nil
	})
	m := f.recv()
	if m["type"] != "describe" || m["name"] != "demo" || m["protocol_version"] != float64(2) {
		t.Fatalf("describe answer = %v", m)
	}
	if code := f.end(); code != 0 {
		t.Fatalf("code = %d", code)
	}
}

func TestHandshakeAndExit(t *testing.T) {
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		if strings.Join(c.Args(), " ") != "--days 3" || c.Init().Paths.UserData != "/d" {
			t.Errorf("init = %+v", c.Init())
		}
		return pluginsdk.Exit(3, "three")
	})
	if m := f.recv(); m["type"] != "ready" || m["protocol"] != float64(2) {
		t.Fatalf("first message = %v", m)
	}
	if m := f.recv(); m["type"] != "exit" || m["code"] != float64(3) || m["reason"] != "three" {
		t.Fatalf("exit = %v", m)
	}
	if code := f.end(); code != 3 {
		t.Fatalf("code = %d", code)
	}
}

func TestOldHostRefused(t *testing.T) {
	inR, inW := io.Pipe()
	go func() { _, _ = io.WriteString(inW, `{"type":"init","version":1}`+"\n"); _ = inW.Close() }()
	_, err := pluginsdk.Start(context.Background(), inR, io.Discard, manifest)
	if err == nil || !strings.Contains(err.Error(), "jp speaks plugin protocol version 1, and this plugin needs 2") {
		t.Fatalf("Start = %v", err)
	}
}

// TestConcurrentRequestsOutOfOrder: many requests in flight from many
// goroutines; jp answers them in reverse order; each caller gets its own
// answer.
func TestConcurrentRequestsOutOfOrder(t *testing.T) {
	const n = 20
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				path := fmt.Sprintf("k%d", i)
				v, err := c.ReadConfig(ctx, path)
				if err == nil && string(v) != fmt.Sprintf("%q", path) {
					err = fmt.Errorf("asked %s, got %s", path, v)
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	})
	f.recv() // ready
	var reqs []map[string]any
	for range n {
		reqs = append(reqs, f.recv())
	}
	for i := n - 1; i >= 0; i-- {
		r := reqs[i]
		if r["type"] != "read_config" || r["id"] == nil {
			t.Fatalf("request = %v", r)
		}
		f.send(fmt.Sprintf(`{"type":"config","id":%q,"path":%q,"data":%q}`, r["id"], r["path"], r["path"]))
	}
	if m := f.recv(); m["type"] != "exit" || m["code"] != float64(0) {
		t.Fatalf("exit = %v", m)
	}
	f.end()
}

func TestErrorAnswerIsAHostError(t *testing.T) {
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		_, err := c.ReadEvents(ctx, "99")
		var he pluginsdk.HostError
		if !errors.As(err, &he) || he.Request != "read_events" || he.Message != "conversation 99 not found" {
			t.Errorf("err = %#v", err)
		}
		return nil
	})
	f.recv()
	r := f.recv()
	f.send(fmt.Sprintf(`{"type":"error","id":%q,"request":"read_events","message":"conversation 99 not found"}`, r["id"]))
	f.recv() // exit
	f.end()
}

func TestPromptOutcomes(t *testing.T) {
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		r, err := c.Confirm(ctx, "Sure?", true)
		if err != nil || !r.Answered() || !r.Bool() {
			t.Errorf("confirm = %+v, %v", r, err)
		}
		r, err = c.Select(ctx, "Which?", "a", "b")
		if err != nil || r.Text() != "b" {
			t.Errorf("select = %+v, %v", r, err)
		}
		r, err = c.Secret(ctx, "Token")
		if err != nil || r.Outcome != plugin.PromptOutcomeUnavailable || r.Reason != "no interactive terminal" || r.Answered() {
			t.Errorf("secret = %+v, %v", r, err)
		}
		return nil
	})
	f.recv()
	p := f.recv()
	if p["kind"] != "confirm" || p["default"] != true || p["message"] != "Sure?" {
		t.Fatalf("prompt = %v", p)
	}
	f.send(fmt.Sprintf(`{"type":"prompt_response","id":%q,"outcome":"answered","value":true}`, p["id"]))
	p = f.recv()
	if fmt.Sprint(p["options"]) != "[a b]" {
		t.Fatalf("select = %v", p)
	}
	f.send(fmt.Sprintf(`{"type":"prompt_response","id":%q,"outcome":"answered","value":"b"}`, p["id"]))
	p = f.recv()
	f.send(fmt.Sprintf(`{"type":"prompt_response","id":%q,"outcome":"unavailable","reason":"no interactive terminal"}`, p["id"]))
	f.recv()
	f.end()
}

// TestShutdown: jp's shutdown ends the run's context and the pending
// prompt (ErrShutdown); the plugin still sends exit.
func TestShutdown(t *testing.T) {
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		_, err := c.Confirm(ctx, "Sure?", false)
		if !errors.Is(err, pluginsdk.ErrShutdown) {
			t.Errorf("prompt = %v", err)
		}
		<-ctx.Done()
		<-c.ShutdownRequested()
		return pluginsdk.Exit(130, "")
	})
	f.recv()
	f.recv() // the prompt
	f.send(`{"type":"shutdown"}`)
	if m := f.recv(); m["type"] != "exit" || m["code"] != float64(130) {
		t.Fatalf("exit = %v", m)
	}
	f.end()
}

func TestHostGoneFailsRequests(t *testing.T) {
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		_, err := c.ListConversations(ctx)
		if !errors.Is(err, pluginsdk.ErrClosed) {
			t.Errorf("err = %v", err)
		}
		return nil
	})
	f.recv()
	f.recv() // the request
	if code := f.end(); code != 0 {
		t.Fatalf("code = %d", code)
	}
}

func TestPrintAndLog(t *testing.T) {
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		if err := c.Print("hi\n"); err != nil {
			return err
		}
		if err := c.PrintTo("chrome", plugin.PrintFormatMarkdown, "# x"); err != nil {
			return err
		}
		return c.Log(plugin.LogLevelDebug, "note", map[string]any{"n": 1})
	})
	f.recv()
	for _, want := range []string{
		`map[text:hi
 type:print]`,
		`map[channel:chrome format:markdown text:# x type:print]`,
		`map[fields:map[n:1] level:debug message:note type:log]`,
		`map[code:0 type:exit]`,
	} {
		if got := fmt.Sprint(f.recv()); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
	f.end()
}
