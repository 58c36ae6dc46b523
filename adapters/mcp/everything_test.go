package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jpcli/jp/domain/llm"
)

// These tests run the real @modelcontextprotocol/server-everything from
// testdata/node_modules (installed by .ci/install-deps).

func findTool(tools []llm.Tool, name string) (llm.Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return llm.Tool{}, false
}

func TestEverythingListsItsTools(t *testing.T) {
	p, _, _ := newTestPool(t, nil)
	ts, release := mustLease(t, p, everythingSpec(t, t.TempDir()), limits)
	defer release()
	tools, err := ts.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	echo, ok := findTool(tools, "everything__echo")
	if !ok {
		t.Fatalf("no everything__echo in %d tools", len(tools))
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(echo.Parameters, &schema); err != nil || schema.Type != "object" || schema.Properties["message"] == nil {
		t.Fatalf("echo schema = %s (%v)", echo.Parameters, err)
	}
	// jp answers elicitations, so the server offers its elicitation tool.
	if _, ok := findTool(tools, "everything__trigger-elicitation-request"); !ok {
		t.Fatal("the server did not see the elicitation capability")
	}
	for _, tool := range tools {
		if strings.Trim(tool.Name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			t.Errorf("tool name %q has characters outside [A-Za-z0-9_-]", tool.Name)
		}
	}
}

func TestEverythingEchoAndRoots(t *testing.T) {
	p, _, _ := newTestPool(t, nil)
	dir := t.TempDir()
	ts, release := mustLease(t, p, everythingSpec(t, dir), limits)
	defer release()
	r, err := ts.Call(context.Background(), "everything__echo", json.RawMessage(`{"message":"hello from jp"}`))
	if err != nil || r.IsError || r.Content != "Echo: hello from jp" {
		t.Fatalf("echo = %+v, %v", r, err)
	}
	// jp offers no roots (a deprecated MCP feature): the server says the
	// client has none.
	r, err = ts.Call(context.Background(), "everything__get-roots-list", nil)
	if err != nil || strings.Contains(r.Content, dir) || !strings.Contains(strings.ToLower(r.Content), "roots") {
		t.Fatalf("roots = %+v, %v", r, err)
	}
	r, _ = ts.Call(context.Background(), "everything__no-such-tool", nil)
	if !r.IsError {
		t.Fatalf("unknown tool = %+v", r)
	}
}

func TestEverythingElicitationAnsweredByHeadlessScript(t *testing.T) {
	s := script(t, `confirm @mcp:everything yes
text @mcp:everything Ada Lovelace
confirm @mcp:everything yes
text @mcp:everything "It was a dark and stormy night."
text @mcp:everything ada@example.com
text @mcp:everything https://example.com/ada
text @mcp:everything 1815-12-10
text @mcp:everything 7
text @mcp:everything 2.5
select @mcp:everything Joey
text @mcp:everything Piano, Drums
select @mcp:everything Wonder Woman
text @mcp:everything Tuna
select @mcp:everything Dogs
`)
	p, _, _ := newTestPool(t, s.Prompter())
	ts, release := mustLease(t, p, everythingSpec(t, t.TempDir()), limits)
	defer release()
	r, err := ts.Call(context.Background(), "everything__trigger-elicitation-request", nil)
	if err != nil || r.IsError {
		t.Fatalf("elicitation tool = %+v, %v", r, err)
	}
	for _, want := range []string{"User provided the requested information", "Name: Ada Lovelace", "Agreed to terms: true",
		"Favorite Integer: 7", `"titledSingleSelectEnum": "hero-3"`, `"legacyTitledEnum": "pet-2"`, `"fish-1"`} {
		if !strings.Contains(r.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, r.Content)
		}
	}
}

func TestRenderToolResults(t *testing.T) {
	res := &sdk.CallToolResult{
		Content: []sdk.Content{
			&sdk.TextContent{Text: "text"},
			&sdk.ImageContent{MIMEType: "image/png", Data: []byte{1, 2}},
			&sdk.ResourceLink{URI: "file:///a", Name: "a"},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b", Text: "bee"}},
		},
		StructuredContent: map[string]any{"sum": 3},
		IsError:           true,
	}
	got := render(res)
	want := "text\n[image: image/png, 2 bytes]\n[resource link: file:///a a]\n[resource: file:///b]\nbee\nstructured content: {\"sum\":3}"
	if got.Content != want || !got.IsError {
		t.Fatalf("render = %q", got.Content)
	}
	// Structured content a text block already carries is not repeated.
	res = &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{"sum": 3}`}}, StructuredContent: map[string]any{"sum": 3}}
	if got := render(res); got.Content != `{"sum": 3}` {
		t.Fatalf("render = %q", got.Content)
	}
	res = &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "file text\n"}}, StructuredContent: map[string]any{"content": "file text\n"}}
	if got := render(res); got.Content != "file text\n" {
		t.Fatalf("render = %q", got.Content)
	}
}

func TestToolName(t *testing.T) {
	cases := map[[2]string]string{
		{"everything", "echo"}:                             "everything__echo",
		{"my.server", "read file/now"}:                     "my_server__read_file_now",
		{"fs", "trigger-elicitation-request"}:              "fs__trigger-elicitation-request",
		{"ünï", "tøøl"}:                                    "_n___t__l",
		{strings.Repeat("s", 40), strings.Repeat("t", 40)}: "",
	}
	for in, want := range cases {
		got := ToolName(in[0], in[1])
		if want == "" {
			if len(got) != 64 || got == ToolName(in[0], in[1]+"x") {
				t.Errorf("ToolName(long) = %q", got)
			}
			continue
		}
		if got != want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", in[0], in[1], got, want)
		}
	}
}
