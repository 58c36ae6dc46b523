package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/ports"
)

// remoteServer is an MCP server over Streamable HTTP (the SDK's handler
// in an httptest server) with an echo tool; it records the headers of
// every request.
type remoteServer struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newRemoteServer(t *testing.T) *remoteServer {
	t.Helper()
	rs := &remoteServer{}
	type echoIn struct {
		Message string `json:"message"`
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
		s := sdk.NewServer(&sdk.Implementation{Name: "remote-fake", Version: "1"}, nil)
		sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes."}, func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Echo: " + in.Message}}}, nil, nil
		})
		s.AddResource(&sdk.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://readme", MIMEType: "text/plain", Text: "read me"}}}, nil
		})
		s.AddPrompt(&sdk.Prompt{Name: "greet", Arguments: []*sdk.PromptArgument{{Name: "who", Required: true}}}, func(_ context.Context, r *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Hello " + r.Params.Arguments["who"]}}}}, nil
		})
		return s
	}, nil)
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		rs.headers = append(rs.headers, r.Header.Clone())
		rs.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *remoteServer) sawHeader(name, value string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, h := range rs.headers {
		if h.Get(name) == value {
			return true
		}
	}
	return false
}

func remoteSpec(url, dir string) ports.MCPServerSpec {
	return ports.MCPServerSpec{Name: "remote", Server: config.MCPServer{URL: url, Enable: true}, Dir: dir}
}

func TestRemoteServerToolsAndCallOverStreamableHTTP(t *testing.T) {
	rs := newRemoteServer(t)
	p, _, _ := newTestPool(t, nil)
	spec := remoteSpec(rs.URL, t.TempDir())
	spec.Server.Headers = map[string]string{"X-Client": "jp-test"}
	spec.Server.BearerTokenEnv = "JP_TEST_REMOTE_TOKEN"
	t.Setenv("JP_TEST_REMOTE_TOKEN", "s3cret")
	ts, release := mustLease(t, p, spec, limits)
	defer release()
	tools, err := ts.Tools(context.Background())
	if err != nil || len(tools) != 1 || tools[0].Name != "remote__echo" {
		t.Fatalf("tools = %+v, %v", tools, err)
	}
	r, err := ts.Call(context.Background(), "remote__echo", []byte(`{"message":"hi"}`))
	if err != nil || r.IsError || r.Content != "Echo: hi" {
		t.Fatalf("call = %+v, %v", r, err)
	}
	if !rs.sawHeader("X-Client", "jp-test") {
		t.Error("the configured header did not reach the server")
	}
	if !rs.sawHeader("Authorization", "Bearer s3cret") {
		t.Error("the bearer token from bearer_token_env did not reach the server")
	}
}

func TestRemoteServerIsOneInstanceAcrossCheckouts(t *testing.T) {
	rs := newRemoteServer(t)
	p, _, _ := newTestPool(t, nil)
	a, ra := mustLease(t, p, remoteSpec(rs.URL, t.TempDir()), limits)
	defer ra()
	b, rb := mustLease(t, p, remoteSpec(rs.URL, t.TempDir()), limits)
	defer rb()
	for _, ts := range []ports.ToolServer{a, b} {
		if r, _ := ts.Call(context.Background(), "remote__echo", []byte(`{"message":"x"}`)); r.IsError {
			t.Fatalf("call: %+v", r)
		}
	}
	if got := p.Instances(); len(got) != 1 || got[0].Leases != 2 || got[0].PID != 0 {
		t.Fatalf("instances = %+v, want one remote instance with two leases", got)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	sessions := map[string]bool{}
	for _, h := range rs.headers {
		if id := h.Get("Mcp-Session-Id"); id != "" {
			sessions[id] = true
		}
	}
	if len(sessions) != 1 {
		t.Fatalf("the server saw sessions %v, want one", sessions)
	}
}

func TestRemoteServerMissingTokenVariableIsOneLine(t *testing.T) {
	p, _, _ := newTestPool(t, nil)
	spec := remoteSpec("http://127.0.0.1:1/mcp", "")
	spec.Server.BearerTokenEnv = "JP_TEST_UNSET_TOKEN"
	_, _, err := p.Lease(context.Background(), spec, limits)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "JP_TEST_UNSET_TOKEN (mcp.servers.remote.bearer_token_env) is empty or unset") {
		t.Fatalf("err = %v", err)
	}
}

func TestRemoteServerRejectsCommandAndURLTogether(t *testing.T) {
	p, _, _ := newTestPool(t, nil)
	spec := remoteSpec("http://127.0.0.1:1/mcp", "")
	spec.Server.Command = []string{"srv"}
	_, _, err := p.Lease(context.Background(), spec, limits)
	if err == nil || !strings.Contains(err.Error(), "sets both command and url") {
		t.Fatalf("err = %v", err)
	}
}

func TestRedactURLDropsCredentials(t *testing.T) {
	got := config.MCPServer{URL: "https://user:pw@example.test/mcp?token=abc#x"}.RedactedURL()
	if got != "https://example.test/mcp" {
		t.Fatalf("RedactedURL = %q", got)
	}
}

func TestRemoteSessionResourcesPromptsAndRawCalls(t *testing.T) {
	rs := newRemoteServer(t)
	p, _, _ := newTestPool(t, nil)
	ctx := context.Background()
	s, release, err := p.Open(ctx, remoteSpec(rs.URL, ""), limits)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	res, err := s.CallTool(ctx, "echo", []byte(`{"message":"raw"}`))
	if err != nil || res.Text != "Echo: raw" || res.IsError || !strings.Contains(string(res.JSON), `"content":[{"type":"text","text":"Echo: raw"}]`) {
		t.Fatalf("CallTool = %+v (%s), %v", res, res.JSON, err)
	}
	if _, err := s.CallTool(ctx, "echo", []byte(`[1]`)); err == nil || !strings.Contains(err.Error(), "must be a JSON object") {
		t.Fatalf("array arguments: %v", err)
	}
	list, err := s.Resources(ctx)
	if err != nil || len(list) != 1 || list[0].URI != "test://readme" || list[0].MIMEType != "text/plain" {
		t.Fatalf("Resources = %+v, %v", list, err)
	}
	got, err := s.ReadResource(ctx, "test://readme")
	if err != nil || len(got) != 1 || got[0].Text != "read me" {
		t.Fatalf("ReadResource = %+v, %v", got, err)
	}
	prompts, err := s.Prompts(ctx)
	if err != nil || len(prompts) != 1 || prompts[0].Name != "greet" || len(prompts[0].Arguments) != 1 || !prompts[0].Arguments[0].Required {
		t.Fatalf("Prompts = %+v, %v", prompts, err)
	}
	pr, err := s.GetPrompt(ctx, "greet", map[string]string{"who": "Ada"})
	if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Role != "user" || pr.Messages[0].Text != "Hello Ada" {
		t.Fatalf("GetPrompt = %+v, %v", pr, err)
	}
	if _, err := s.GetPrompt(ctx, "nope", nil); err == nil {
		t.Fatal("an unknown prompt did not fail")
	}
}
