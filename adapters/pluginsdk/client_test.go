package pluginsdk_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/adapters/pluginsdk/plugintest"
	"github.com/jpcli/jp/domain/plugin"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var manifest = plugin.Manifest{Name: "demo", Version: "1.0.0", Description: "A demo", Command: []string{"demo"}, ProtocolVersion: 2}

// start runs fn as a plugin against a fake jp, which sends first.
func start(t *testing.T, first string, fn pluginsdk.RunFunc) *plugintest.FakeJP {
	t.Helper()
	return plugintest.Start(t, manifest, first, fn)
}

const initLine = `{"type":"init","version":2,"options":{},"args":["--days","3"],"log_level":1,"output_format":"text","paths":{"user_data":"/d","user_config":"/c"}}`

func TestDescribe(t *testing.T) {
	f := start(t, `{"type":"describe"}`, func(context.Context, *pluginsdk.Client) error {
		t.Error("run must not be called for describe")
		return nil
	})
	m := f.Recv()
	if m["type"] != "describe" || m["name"] != "demo" || m["protocol_version"] != float64(2) {
		t.Fatalf("describe answer = %v", m)
	}
	if code := f.End(); code != 0 {
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
	if m := f.Recv(); m["type"] != "ready" || m["protocol"] != float64(2) {
		t.Fatalf("first message = %v", m)
	}
	if m := f.Recv(); m["type"] != "exit" || m["code"] != float64(3) || m["reason"] != "three" {
		t.Fatalf("exit = %v", m)
	}
	if code := f.End(); code != 3 {
		t.Fatalf("code = %d", code)
	}
}

// TestReadyRaisesUndeclaredVersion: a binary without a manifest file gets
// init version 1; the SDK's ready declares the version the plugin needs,
// which raises it, instead of giving up.
func TestReadyRaisesUndeclaredVersion(t *testing.T) {
	f := start(t, `{"type":"init","version":1}`, func(ctx context.Context, c *pluginsdk.Client) error {
		return nil
	})
	if m := f.Recv(); m["type"] != "ready" || m["protocol"] != float64(2) {
		t.Fatalf("first message = %v", m)
	}
	if m := f.Recv(); m["type"] != "exit" || m["code"] != float64(0) {
		t.Fatalf("exit = %v", m)
	}
	f.End()
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
	f.Recv() // ready
	var reqs []map[string]any
	for range n {
		reqs = append(reqs, f.Recv())
	}
	for i := n - 1; i >= 0; i-- {
		r := reqs[i]
		if r["type"] != "read_config" || r["id"] == nil {
			t.Fatalf("request = %v", r)
		}
		f.Send(fmt.Sprintf(`{"type":"config","id":%q,"path":%q,"data":%q}`, r["id"], r["path"], r["path"]))
	}
	if m := f.Recv(); m["type"] != "exit" || m["code"] != float64(0) {
		t.Fatalf("exit = %v", m)
	}
	f.End()
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
	f.Recv()
	r := f.Recv()
	f.Send(fmt.Sprintf(`{"type":"error","id":%q,"request":"read_events","message":"conversation 99 not found"}`, r["id"]))
	f.Recv() // exit
	f.End()
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
	f.Recv()
	p := f.Recv()
	if p["kind"] != "confirm" || p["default"] != true || p["message"] != "Sure?" {
		t.Fatalf("prompt = %v", p)
	}
	f.Send(fmt.Sprintf(`{"type":"prompt_response","id":%q,"outcome":"answered","value":true}`, p["id"]))
	p = f.Recv()
	if fmt.Sprint(p["options"]) != "[a b]" {
		t.Fatalf("select = %v", p)
	}
	f.Send(fmt.Sprintf(`{"type":"prompt_response","id":%q,"outcome":"answered","value":"b"}`, p["id"]))
	p = f.Recv()
	f.Send(fmt.Sprintf(`{"type":"prompt_response","id":%q,"outcome":"unavailable","reason":"no interactive terminal"}`, p["id"]))
	f.Recv()
	f.End()
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
	f.Recv()
	f.Recv() // the prompt
	f.Send(`{"type":"shutdown"}`)
	if m := f.Recv(); m["type"] != "exit" || m["code"] != float64(130) {
		t.Fatalf("exit = %v", m)
	}
	f.End()
}

func TestHostGoneFailsRequests(t *testing.T) {
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		_, err := c.ListConversations(ctx)
		if !errors.Is(err, pluginsdk.ErrClosed) {
			t.Errorf("err = %v", err)
		}
		return nil
	})
	f.Recv()
	f.Recv() // the request
	if code := f.End(); code != 0 {
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
	f.Recv()
	for _, want := range []string{
		`map[text:hi
 type:print]`,
		`map[channel:chrome format:markdown text:# x type:print]`,
		`map[fields:map[n:1] level:debug message:note type:log]`,
		`map[code:0 type:exit]`,
	} {
		if got := fmt.Sprint(f.Recv()); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
	f.End()
}
