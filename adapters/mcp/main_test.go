package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/ports"
)

// fakeServerEnv makes the test binary an MCP server (see fakeServer).
const fakeServerEnv = "JP_MCP_FAKE_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeServerEnv); mode != "" {
		fakeServer(mode)
		return
	}
	StopGrace = 200 * time.Millisecond
	goleak.VerifyTestMain(m)
}

// fakeServer serves MCP over stdio with tools for the pool's tests:
// pid, cwd, crash, hang, ask (elicits the schema in its arguments) and
// structured. mode "stubborn" ignores stdin EOF; "deaf" also ignores
// SIGTERM.
func fakeServer(mode string) {
	if mode == "deaf" {
		signal.Ignore(syscall.SIGTERM)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1"}, nil)
	type none struct{}
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "The server's process ID."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(os.Getpid())}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "cwd", Description: "The server's working directory."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		wd, _ := os.Getwd()
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: wd}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exits mid-call."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "fake server: crashing on purpose")
		os.Exit(3)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "Waits until cancelled."}, func(ctx context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	type askIn struct {
		Schema string `json:"schema"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "ask", Description: "Elicits the schema it is given."}, func(ctx context.Context, req *sdk.CallToolRequest, in askIn) (*sdk.CallToolResult, any, error) {
		form, ok := req.Params.InputResponses["form"]
		if !ok { // first round: ask the client (multi round-trip, SEP-2322)
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{
				"form": &sdk.ElicitParams{Message: "Fill in the form", RequestedSchema: json.RawMessage(in.Schema)},
			}}, nil, nil
		}
		b, _ := json.Marshal(form)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds a tool: the server's tool list changes."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		sdk.AddTool(s, &sdk.Tool{Name: "grown", Description: "Added by grow."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grown"}}}, nil, nil
		})
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grew"}}}, nil, nil
	})
	type out struct {
		Sum int `json:"sum"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "structured", Description: "Structured output."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, out, error) {
		return nil, out{Sum: 3}, nil
	})
	_ = s.Run(context.Background(), &sdk.StdioTransport{})
	if mode == "stubborn" || mode == "deaf" {
		select {}
	}
	os.Exit(0)
}

// fakeSpec is a spec that runs the fake server in dir.
func fakeSpec(t testing.TB, dir, mode string) ports.MCPServerSpec {
	t.Helper()
	if mode == "" {
		mode = "plain"
	}
	return ports.MCPServerSpec{Name: "fake", Dir: dir, Server: config.MCPServer{
		Command: []string{os.Args[0]}, Env: map[string]string{fakeServerEnv: mode}, Enable: true,
	}}
}

// npmServer returns the path of an npm-installed test server, skipping
// the test when .ci/install-deps has not run (failing it under CI=true).
func npmServer(t testing.TB, bin string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "node_modules", ".bin", bin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (run .ci/install-deps): %v", bin, err)
		}
		t.Skipf("%s is not installed; run .ci/install-deps", bin)
	}
	return p
}

// everythingSpec runs @modelcontextprotocol/server-everything in dir.
func everythingSpec(t testing.TB, dir string) ports.MCPServerSpec {
	return ports.MCPServerSpec{Name: "everything", Dir: dir, Server: config.MCPServer{
		Command: []string{npmServer(t, "mcp-server-everything")}, Enable: true,
	}}
}

// fakeTimers is a ports.Timers whose time moves only with Advance.
type fakeTimers struct {
	mu      sync.Mutex
	now     time.Duration
	waiters []waiter
	added   chan struct{} // receives a value for every After
}

type waiter struct {
	at time.Duration
	ch chan time.Time
}

func newFakeTimers() *fakeTimers { return &fakeTimers{added: make(chan struct{}, 64)} }

func (f *fakeTimers) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	f.waiters = append(f.waiters, waiter{at: f.now + d, ch: ch})
	select {
	case f.added <- struct{}{}:
	default:
	}
	return ch
}

// Advance moves time by d and fires the timers that are due.
func (f *fakeTimers) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now += d
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if w.at <= f.now {
			w.ch <- time.Unix(0, 0).Add(f.now)
			continue
		}
		kept = append(kept, w)
	}
	f.waiters = kept
}

// newTestPool returns a pool on fake timers, shut down when t ends, and a
// channel receiving every instance it stops.
func newTestPool(t *testing.T, prompter ports.Prompter) (*Pool, *fakeTimers, chan ports.MCPServerSpec) {
	t.Helper()
	ft := newFakeTimers()
	p, err := NewPool(Options{Timers: ft, Prompter: prompter, LeaseWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	stopped := make(chan ports.MCPServerSpec, 16)
	p.afterStop = func(s ports.MCPServerSpec) { stopped <- s }
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return p, ft, stopped
}

// within fails the test unless ch delivers within a generous bound.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

var limits = ports.MCPLimits{IdleShutdown: time.Minute, MaxInstances: 4}
