package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// maxOutput bounds what one tool call may return to the model.
const maxOutput = 1 << 20

// maxToolName is the longest tool name providers accept.
const maxToolName = 64

// ToolName is the name an MCP tool is offered to the model under:
// <server>__<tool>, every character outside [A-Za-z0-9_-] replaced by _.
// A name longer than 64 characters is cut and ends in a hash of the
// original, so it stays unique.
func ToolName(server, tool string) string {
	n := sanitize(server) + "__" + sanitize(tool)
	if len(n) <= maxToolName {
		return n
	}
	h := sha256.Sum256([]byte(server + "\x00" + tool))
	return n[:maxToolName-9] + "_" + hex.EncodeToString(h[:4])
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

// lease is the ports.ToolServer a turn gets for one leased instance. It
// lists the server's tools once (per lease) and maps names back on Call.
type lease struct {
	c *conn

	mu     sync.Mutex
	tools  []llm.Tool
	byName map[string]string // offered name -> the server's tool name
}

var _ ports.ToolServer = (*lease)(nil)

func (p *Pool) newLease(in *instance) *lease { return &lease{c: in.c} }

// Tools lists the server's tools as <server>__<tool>, with their input
// schemas.
func (l *lease) Tools(ctx context.Context) ([]llm.Tool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byName != nil {
		return append([]llm.Tool(nil), l.tools...), nil
	}
	byName := map[string]string{}
	var tools []llm.Tool
	for t, err := range l.c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list the tools of MCP server %s: %v", l.c.name, l.describe(err))
		}
		name := ToolName(l.c.name, t.Name)
		if _, dup := byName[name]; dup {
			l.c.log.Warn("MCP tool name clash; offering the first only", "server", l.c.name, "tool", t.Name, "name", name)
			continue
		}
		byName[name] = t.Name
		tools = append(tools, llm.Tool{Name: name, Description: t.Description, Parameters: inputSchema(t.InputSchema)})
	}
	l.tools, l.byName = tools, byName
	l.c.remember(tools)
	return append([]llm.Tool(nil), tools...), nil
}

// remember writes the listing to the tool cache, with the name and
// version the server reported in its handshake.
func (c *conn) remember(tools []llm.Tool) {
	e := cacheEntry{Tools: tools}
	if r := c.session.InitializeResult(); r != nil && r.ServerInfo != nil {
		e.ServerName, e.ServerVersion = r.ServerInfo.Name, r.ServerInfo.Version
	}
	c.cache.store(c.spec, e)
}

// inputSchema is a tool's input schema as JSON, an empty object schema
// when the server gave none.
func inputSchema(s any) json.RawMessage {
	if s != nil {
		if b, err := json.Marshal(s); err == nil && string(b) != "null" {
			return b
		}
	}
	return json.RawMessage(`{"type":"object","properties":{}}`)
}

// Call runs the tool offered as name. A failure of the tool, of its
// arguments or of the server (a crash mid-call) is an error result.
func (l *lease) Call(ctx context.Context, name string, args json.RawMessage) (ports.ToolResult, error) {
	if _, err := l.Tools(ctx); err != nil {
		return ports.ToolResult{Content: err.Error(), IsError: true}, nil
	}
	l.mu.Lock()
	tool, ok := l.byName[name]
	l.mu.Unlock()
	if !ok {
		return ports.ToolResult{Content: fmt.Sprintf("MCP server %s has no tool offered as %q", l.c.name, name), IsError: true}, nil
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var obj map[string]any
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return ports.ToolResult{Content: "arguments must be a JSON object", IsError: true}, nil
	}
	l.c.pending.Add(1)
	res, err := l.c.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	l.c.pending.Add(-1)
	if err != nil {
		if ctx.Err() != nil {
			return ports.ToolResult{Content: "cancelled", IsError: true}, nil
		}
		return ports.ToolResult{Content: fmt.Sprintf("MCP server %s: %s: %v", l.c.name, tool, l.describe(err)), IsError: true}, nil
	}
	return render(res), nil
}

// describe turns a session error into what happened to the server: a
// crash (the next lease starts a fresh instance) or the server's error.
func (l *lease) describe(err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && !l.c.gone() {
		return err // the server answered with an error: it is alive
	}
	l.c.broken.Store(true)
	if l.c.proc == nil {
		return fmt.Errorf("the connection to the server failed (%v); the next turn connects again", err)
	}
	l.c.proc.waitFor(StopGrace)
	return fmt.Errorf("the server stopped during the call (%s); the next turn starts it again", l.c.proc.status())
}

// render flattens a tool result for the model: text blocks as they are,
// other blocks as one-line descriptions, and structured content as JSON
// unless a text block already carries it.
func render(res *sdk.CallToolResult) ports.ToolResult {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s %s]", c.URI, c.Name))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource))
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, string(b))
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && !carries(parts, res.StructuredContent, b) {
			parts = append(parts, "structured content: "+string(b))
		}
	}
	out := strings.Join(parts, "\n")
	if len(out) > maxOutput {
		out = out[:maxOutput] + "\n[output truncated]"
	}
	return ports.ToolResult{Content: out, IsError: res.IsError}
}

func embedded(r *sdk.ResourceContents) string {
	switch {
	case r == nil:
		return "[resource]"
	case r.Text != "":
		return fmt.Sprintf("[resource: %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
}

// carries reports whether the text parts already carry v, whose JSON is
// want: one of them is that JSON (servers are asked to send it so), or v
// is an object whose values are all strings found in the text
// (server-filesystem sends {"content": <the text>}).
func carries(parts []string, v any, want []byte) bool {
	for _, p := range parts {
		var got any
		if json.Unmarshal([]byte(p), &got) != nil {
			continue
		}
		if b, err := json.Marshal(got); err == nil && string(b) == string(want) {
			return true
		}
	}
	obj, ok := v.(map[string]any)
	if !ok || len(obj) == 0 {
		return false
	}
	text := strings.Join(parts, "\n")
	for _, val := range obj {
		s, ok := val.(string)
		if !ok || s == "" || !strings.Contains(text, s) {
			return false
		}
	}
	return true
}
