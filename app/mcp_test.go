package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// mcpServer is a ToolServer offering tools.
func mcpServer(tools ...llm.Tool) *mocks.ToolServerMock {
	return &mocks.ToolServerMock{ToolsFunc: func(context.Context) ([]llm.Tool, error) { return tools, nil }}
}

func newMCP(t *testing.T, cfg config.Config, pool ports.MCPPool) (*app.MCP, app.ConfigInput) {
	t.Helper()
	store := memstore.New(clockFrom(time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)))
	ws := app.NewWorkspaces(store, store)
	if _, err := ws.Init(context.Background(), "/proj"); err != nil {
		t.Fatal(err)
	}
	loader := &mocks.ConfigLoaderMock{LoadFunc: func(_ context.Context, src ports.ConfigSource) (config.Resolved, error) {
		if src.WorkspaceRoot != "/proj" {
			t.Errorf("config loaded for root %q", src.WorkspaceRoot)
		}
		return config.Resolved{Config: cfg}, nil
	}}
	return app.NewMCP(ws, loader, pool), app.ConfigInput{LaunchDir: "/proj"}
}

func mcpConfig() config.Config {
	cfg := config.Default()
	cfg.MCP.Servers["everything"] = config.MCPServer{Command: []string{"mcp-server-everything"}, Env: map[string]string{"TOKEN": "secret"}, Enable: true}
	cfg.MCP.Servers["broken"] = config.MCPServer{Command: []string{"nope"}, Enable: true}
	cfg.MCP.Servers["off"] = config.MCPServer{Command: []string{"off"}}
	return cfg
}

func TestMCPListShowsServersWithoutEnvValues(t *testing.T) {
	m, in := newMCP(t, mcpConfig(), &mocks.MCPPoolMock{})
	list, err := m.List(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].Name != "broken" || list[2].Name != "off" || list[2].Enabled {
		t.Fatalf("list = %+v", list)
	}
	if e := list[1]; e.Name != "everything" || len(e.EnvKeys) != 1 || e.EnvKeys[0] != "TOKEN" {
		t.Fatalf("everything = %+v", e)
	}
}

func TestMCPCheckStartsListsAndStopsEachServer(t *testing.T) {
	var events []string
	pool := &mocks.MCPPoolMock{
		LeaseFunc: func(_ context.Context, spec ports.MCPServerSpec, _ ports.MCPLimits) (ports.ToolServer, func(), error) {
			events = append(events, "lease "+spec.Name+" in "+spec.Dir)
			if spec.Name == "broken" {
				return nil, nil, errors.New(`command "nope" not found`)
			}
			return mcpServer(llm.Tool{Name: "everything__echo"}), func() { events = append(events, "release "+spec.Name) }, nil
		},
		StopFunc: func(_ context.Context, spec ports.MCPServerSpec) error {
			events = append(events, "stop "+spec.Name)
			return nil
		},
	}
	m, in := newMCP(t, mcpConfig(), pool)
	checks, err := m.Check(context.Background(), in, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "lease broken in /proj|lease everything in /proj|release everything|stop everything"
	if got := strings.Join(events, "|"); got != want {
		t.Fatalf("events = %s\nwant     %s", got, want)
	}
	if len(checks) != 2 || checks[0].Err == nil || len(checks[1].Tools) != 1 {
		t.Fatalf("checks = %+v", checks)
	}

	events = nil
	if _, err := m.Check(context.Background(), in, "off"); err != nil || events[0] != "lease off in /proj" {
		t.Fatalf("a named disabled server is checked: %v %v", events, err)
	}
	var ue *app.UserError
	if _, err := m.Check(context.Background(), in, "ghost"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "broken, everything, off") {
		t.Fatalf("unknown server: %v", err)
	}
}

func TestMCPPromptMessageJoinsMessagesAndMarksTheAssistant(t *testing.T) {
	released := 0
	var gotArgs map[string]string
	sess := &mocks.MCPSessionMock{GetPromptFunc: func(_ context.Context, name string, args map[string]string) (ports.MCPPromptResult, error) {
		if name != "greet" {
			t.Errorf("prompt %q", name)
		}
		gotArgs = args
		return ports.MCPPromptResult{Messages: []ports.MCPPromptMessage{
			{Role: "user", Text: "Hello " + args["who"]},
			{Role: "assistant", Text: "Hi."},
			{Role: "user", Text: "Go on."},
		}}, nil
	}}
	pool := &mocks.MCPPoolMock{OpenFunc: func(_ context.Context, spec ports.MCPServerSpec, _ ports.MCPLimits) (ports.MCPSession, func(), error) {
		if spec.Name != "off" || spec.Dir != "/proj" {
			t.Errorf("opened %+v", spec)
		}
		return sess, func() { released++ }, nil
	}}
	m, in := newMCP(t, mcpConfig(), pool)
	msg, err := m.PromptMessage(context.Background(), in, "off", "greet", map[string]string{"who": "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if msg != "Hello Ada\n\nAssistant: Hi.\n\nGo on." || gotArgs["who"] != "Ada" || released != 1 {
		t.Fatalf("msg = %q, args %v, released %d", msg, gotArgs, released)
	}
}

func TestMCPCallOfAnUnknownServerNamesTheConfigured(t *testing.T) {
	m, in := newMCP(t, mcpConfig(), &mocks.MCPPoolMock{})
	_, err := m.Call(context.Background(), in, "ghost", "echo", nil)
	var ue *app.UserError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `no MCP server "ghost" is configured (configured: broken, everything, off)`) {
		t.Fatalf("err = %v", err)
	}
}

func TestMCPCallFailureIsAUserErrorAndReleases(t *testing.T) {
	released := 0
	sess := &mocks.MCPSessionMock{CallToolFunc: func(context.Context, string, json.RawMessage) (ports.MCPToolResult, error) {
		return ports.MCPToolResult{}, errors.New("MCP server everything: echo: boom")
	}}
	pool := &mocks.MCPPoolMock{OpenFunc: func(context.Context, ports.MCPServerSpec, ports.MCPLimits) (ports.MCPSession, func(), error) {
		return sess, func() { released++ }, nil
	}}
	m, in := newMCP(t, mcpConfig(), pool)
	_, err := m.Call(context.Background(), in, "everything", "echo", json.RawMessage(`{}`))
	var ue *app.UserError
	if !errors.As(err, &ue) || err.Error() != "MCP server everything: echo: boom" || released != 1 {
		t.Fatalf("err = %v, released %d", err, released)
	}
}
