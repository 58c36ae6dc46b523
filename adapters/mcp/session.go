package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jpcli/jp/ports"
)

var _ ports.MCPSession = (*lease)(nil)

// Open implements ports.MCPPool: a lease whose session also reaches the
// server's resources, prompts and tools by their own names.
func (p *Pool) Open(ctx context.Context, spec ports.MCPServerSpec, lim ports.MCPLimits) (ports.MCPSession, func(), error) {
	ts, release, err := p.Lease(ctx, spec, lim)
	if err != nil {
		return nil, nil, err
	}
	return ts.(*lease), release, nil
}

// CallTool calls the server's tool by its own name. A tool that failed
// (isError) is a result; a failed request (no such tool, the server went
// away) is an error.
func (l *lease) CallTool(ctx context.Context, tool string, args json.RawMessage) (ports.MCPToolResult, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var obj map[string]any
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return ports.MCPToolResult{}, fmt.Errorf("the arguments of %s must be a JSON object, like '{\"message\": \"hi\"}'", tool)
	}
	l.c.pending.Add(1)
	res, err := l.c.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	l.c.pending.Add(-1)
	if err != nil {
		if ctx.Err() != nil {
			return ports.MCPToolResult{}, ctx.Err()
		}
		return ports.MCPToolResult{}, fmt.Errorf("MCP server %s: %s: %v", l.c.name, tool, l.describe(err))
	}
	r := render(res)
	raw, _ := json.Marshal(res)
	return ports.MCPToolResult{Text: r.Content, IsError: r.IsError, JSON: raw}, nil
}

// capabilities returns what the server declared in its handshake.
func (l *lease) capabilities() *sdk.ServerCapabilities {
	if r := l.c.session.InitializeResult(); r != nil && r.Capabilities != nil {
		return r.Capabilities
	}
	return &sdk.ServerCapabilities{}
}

// Resources lists the server's resources, then its resource templates;
// a server without the resources capability has none.
func (l *lease) Resources(ctx context.Context) ([]ports.MCPResource, error) {
	if l.capabilities().Resources == nil {
		return nil, nil
	}
	var out []ports.MCPResource
	for r, err := range l.c.session.Resources(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list the resources of MCP server %s: %v", l.c.name, l.describe(err))
		}
		out = append(out, ports.MCPResource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
	}
	for r, err := range l.c.session.ResourceTemplates(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list the resource templates of MCP server %s: %v", l.c.name, l.describe(err))
		}
		out = append(out, ports.MCPResource{Template: r.URITemplate, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
	}
	return out, nil
}

// ReadResource reads one resource.
func (l *lease) ReadResource(ctx context.Context, uri string) ([]ports.MCPResourceContent, error) {
	res, err := l.c.session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("read %s from MCP server %s: %v", uri, l.c.name, l.describe(err))
	}
	out := make([]ports.MCPResourceContent, 0, len(res.Contents))
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		out = append(out, ports.MCPResourceContent{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob})
	}
	return out, nil
}

// Prompts lists the server's prompts; a server without the prompts
// capability has none.
func (l *lease) Prompts(ctx context.Context) ([]ports.MCPPrompt, error) {
	if l.capabilities().Prompts == nil {
		return nil, nil
	}
	var out []ports.MCPPrompt
	for p, err := range l.c.session.Prompts(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list the prompts of MCP server %s: %v", l.c.name, l.describe(err))
		}
		mp := ports.MCPPrompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: []ports.MCPPromptArgument{}}
		for _, a := range p.Arguments {
			if a != nil {
				mp.Arguments = append(mp.Arguments, ports.MCPPromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
		}
		out = append(out, mp)
	}
	return out, nil
}

// GetPrompt renders one prompt; each message's content becomes text as
// a tool result's does.
func (l *lease) GetPrompt(ctx context.Context, name string, args map[string]string) (ports.MCPPromptResult, error) {
	res, err := l.c.session.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return ports.MCPPromptResult{}, fmt.Errorf("get prompt %s from MCP server %s: %v", name, l.c.name, l.describe(err))
	}
	out := ports.MCPPromptResult{Description: res.Description, Messages: []ports.MCPPromptMessage{}}
	for _, m := range res.Messages {
		if m == nil {
			continue
		}
		text := render(&sdk.CallToolResult{Content: []sdk.Content{m.Content}}).Content
		out.Messages = append(out.Messages, ports.MCPPromptMessage{Role: string(m.Role), Text: text})
	}
	return out, nil
}

// Login implements ports.MCPPool: it connects to spec's remote server
// without its stored tokens, runs the OAuth login the server asks for
// (the browser and the loopback redirect), stores the tokens, lists the
// server's tools to prove them, and disconnects. It returns how many
// tools the server listed.
func (p *Pool) Login(ctx context.Context, spec ports.MCPServerSpec) (int, error) {
	if !spec.Server.Remote() {
		return 0, fmt.Errorf("MCP server %s runs a command; only a remote server (mcp.servers.%s.url) has a login", spec.Name, spec.Name)
	}
	if p.o.Auth == nil {
		return 0, fmt.Errorf("MCP server %s: this jp keeps no logins", spec.Name)
	}
	if spec.Server.BearerTokenEnv != "" {
		return 0, fmt.Errorf("MCP server %s authenticates with the token in $%s (mcp.servers.%s.bearer_token_env); it needs no login", spec.Name, spec.Server.BearerTokenEnv, spec.Name)
	}
	if err := p.Stop(ctx, spec); err != nil {
		return 0, err
	}
	c, err := start(ctx, spec, &p.o, p.el, p.cache, true)
	if err != nil {
		return 0, err
	}
	defer c.close()
	l := &lease{c: c}
	tools, err := l.Tools(ctx)
	if err != nil {
		return 0, err
	}
	return len(tools), nil
}

// Logout implements ports.MCPPool: spec's stored tokens are removed and
// its running instance, if idle, stopped.
func (p *Pool) Logout(ctx context.Context, spec ports.MCPServerSpec) (bool, error) {
	if p.o.Auth == nil || !spec.Server.Remote() {
		return false, nil
	}
	_ = p.Stop(ctx, spec)
	return p.o.Auth.Forget(spec)
}
