package toolsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/mcp"
	"github.com/jpcli/jp/adapters/sysclock"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/internal/sandbox"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

func TestMain(m *testing.M) {
	sandbox.Init() // this test binary is the sandbox helper
	goleak.VerifyTestMain(m)
}

func testConfig(servers ...string) config.Config {
	c := config.Default()
	for _, s := range servers {
		c.MCP.Servers[s] = config.MCPServer{Command: []string{"srv-" + s}, Enable: true}
	}
	c.Conversation.Tools.Named["local"] = config.Tool{Command: []string{"true"}, Description: "a local tool"}
	return c
}

// fakeServer is a ToolServer offering names; a call's result names the
// tool and the server's names.
func fakeServer(names ...string) *mocks.ToolServerMock {
	return &mocks.ToolServerMock{
		ToolsFunc: func(context.Context) ([]llm.Tool, error) {
			var out []llm.Tool
			for _, n := range names {
				out = append(out, llm.Tool{Name: n})
			}
			return out, nil
		},
		CallFunc: func(_ context.Context, name string, _ json.RawMessage) (ports.ToolResult, error) {
			return ports.ToolResult{Content: "called " + name + " on " + strings.Join(names, ",")}, nil
		},
	}
}

func TestOpenLeasesEveryEnabledServerAndMergesTools(t *testing.T) {
	var mu sync.Mutex
	var leased, released []string
	pool := &mocks.MCPPoolMock{
		CachedToolsFunc: noCache,
		LeaseFunc: func(_ context.Context, spec ports.MCPServerSpec, lim ports.MCPLimits) (ports.ToolServer, func(), error) {
			mu.Lock()
			defer mu.Unlock()
			if spec.Dir != "/checkout" || lim.IdleShutdown != 300*time.Second || lim.MaxInstances != 16 {
				t.Errorf("lease %+v %+v", spec, lim)
			}
			leased = append(leased, spec.Name)
			names := []string{spec.Name + "__x", "local"} // "local" clashes with the local tool
			return fakeServer(names...), func() { mu.Lock(); released = append(released, spec.Name); mu.Unlock() }, nil
		},
	}
	cfg := testConfig("a", "b", "off")
	cfg.MCP.Servers["off"] = config.MCPServer{Command: []string{"x"}}
	ts, release, err := New(pool, nil).Open(context.Background(), cfg, "/checkout")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(leased)
	if !slices.Equal(leased, []string{"a", "b"}) {
		t.Fatalf("leased %v, want the enabled servers", leased)
	}
	tools, err := ts.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"local", "a__x", "b__x"}) {
		t.Fatalf("tools = %v", names)
	}
	r, _ := ts.Call(context.Background(), "b__x", nil)
	if r.Content != "called b__x on b__x,local" {
		t.Fatalf("call routed to %q", r.Content)
	}
	if r, _ := ts.Call(context.Background(), "nope", nil); !r.IsError {
		t.Fatalf("unknown tool: %+v", r)
	}
	release()
	slices.Sort(released)
	if !slices.Equal(released, []string{"a", "b"}) {
		t.Fatalf("released %v", released)
	}
}

func TestOpenFailsWhenAServerFailsAndReleasesTheOthers(t *testing.T) {
	var released []string
	var mu sync.Mutex
	pool := &mocks.MCPPoolMock{
		CachedToolsFunc: noCache,
		LeaseFunc: func(_ context.Context, spec ports.MCPServerSpec, _ ports.MCPLimits) (ports.ToolServer, func(), error) {
			if spec.Name == "bad" {
				return nil, nil, fmt.Errorf("MCP server bad failed to start")
			}
			return fakeServer(), func() { mu.Lock(); released = append(released, spec.Name); mu.Unlock() }, nil
		},
	}
	_, _, err := New(pool, nil).Open(context.Background(), testConfig("good", "bad"), "/c")
	if err == nil || !strings.Contains(err.Error(), "bad failed to start") {
		t.Fatalf("err = %v", err)
	}
	if !slices.Equal(released, []string{"good"}) {
		t.Fatalf("released %v", released)
	}
}

func noCache(ports.MCPServerSpec) ([]llm.Tool, bool) { return nil, false }

// A server whose tool list is cached is offered from the cache and not
// leased until the model calls one of its tools; one that fails to start
// then is an error result naming it, and the turn goes on.
func TestOpenOffersCachedToolsAndLeasesOnFirstCall(t *testing.T) {
	var mu sync.Mutex
	var leased, released []string
	pool := &mocks.MCPPoolMock{
		CachedToolsFunc: func(spec ports.MCPServerSpec) ([]llm.Tool, bool) {
			if spec.Name == "cold" {
				return nil, false
			}
			return []llm.Tool{{Name: spec.Name + "__x"}}, true
		},
		LeaseFunc: func(_ context.Context, spec ports.MCPServerSpec, _ ports.MCPLimits) (ports.ToolServer, func(), error) {
			mu.Lock()
			defer mu.Unlock()
			leased = append(leased, spec.Name)
			if spec.Name == "broken" {
				return nil, nil, fmt.Errorf("MCP server broken failed to start")
			}
			return fakeServer(spec.Name+"__x", spec.Name+"__new"), func() {
				mu.Lock()
				released = append(released, spec.Name)
				mu.Unlock()
			}, nil
		},
	}
	ts, release, err := New(pool, nil).Open(context.Background(), testConfig("warm", "cold", "broken"), "/c")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(leased, []string{"cold"}) {
		t.Fatalf("leased at open: %v, want only the server with no cached list", leased)
	}
	tools, err := ts.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"local", "broken__x", "cold__x", "cold__new", "warm__x"}) {
		t.Fatalf("tools = %v", names)
	}
	if r, _ := ts.Call(context.Background(), "warm__x", nil); r.IsError || r.Content != "called warm__x on warm__x,warm__new" {
		t.Fatalf("call on the cached server: %+v", r)
	}
	if r, _ := ts.Call(context.Background(), "broken__x", nil); !r.IsError || !strings.Contains(r.Content, "broken failed to start") {
		t.Fatalf("call on a server that cannot start: %+v", r)
	}
	mu.Lock()
	got := slices.Clone(leased)
	mu.Unlock()
	if !slices.Equal(got, []string{"cold", "warm", "broken"}) {
		t.Fatalf("leased %v", got)
	}
	release()
	release()
	slices.Sort(released)
	if !slices.Equal(released, []string{"cold", "warm"}) {
		t.Fatalf("released %v, want each lease taken released once", released)
	}
}

func TestOpenRefusesMoreServersThanMaxInstances(t *testing.T) {
	cfg := testConfig("a", "b")
	cfg.MCP.MaxInstances = 1
	_, _, err := New(&mocks.MCPPoolMock{}, nil).Open(context.Background(), cfg, "/c")
	if !errors.Is(err, ports.ErrMCPLimit) || !strings.Contains(err.Error(), "mcp.max_instances = 1") {
		t.Fatalf("err = %v", err)
	}
}

// TestFilesystemServerReadsAFileInTheCheckout runs the real
// @modelcontextprotocol/server-filesystem, spawned in the checkout.
func TestFilesystemServerReadsAFileInTheCheckout(t *testing.T) {
	bin, err := filepath.Abs("../mcp/testdata/node_modules/.bin/mcp-server-filesystem")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("server-filesystem is not installed (run .ci/install-deps): %v", err)
		}
		t.Skip("server-filesystem is not installed; run .ci/install-deps")
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("inside the checkout\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pool, err := mcp.NewPool(mcp.Options{Timers: sysclock.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pool.Shutdown(context.Background()) }()
	cfg := config.Default()
	cfg.MCP.Servers["filesystem"] = config.MCPServer{Command: []string{bin, "."}, Enable: true}
	ts, release, err := New(pool, nil).Open(context.Background(), cfg, root)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := ts.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	r, err := ts.Call(context.Background(), "filesystem__read_text_file", json.RawMessage(`{"path":"notes.txt"}`))
	if err != nil || r.IsError || !strings.Contains(r.Content, "inside the checkout") {
		t.Fatalf("read = %+v, %v", r, err)
	}
	outside := filepath.Join(filepath.Dir(root), "elsewhere.txt")
	r, _ = ts.Call(context.Background(), "filesystem__read_text_file", json.RawMessage(fmt.Sprintf(`{"path":%q}`, outside)))
	if !r.IsError {
		t.Fatalf("a read outside the checkout succeeded: %+v", r)
	}
}
