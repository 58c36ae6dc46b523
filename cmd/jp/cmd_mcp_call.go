package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/ports"
	jpwire "github.com/jpcli/jp/wire"
)

// McpCallCmd is jp mcp call: one tool call, for debugging a server (and
// the client command of the MCP conformance suite).
type McpCallCmd struct {
	Name     string `arg:"" help:"The server, as named in [mcp.servers.<name>]."`
	Tool     string `arg:"" help:"The tool, by the server's own name for it (echo, not everything__echo)."`
	Args     string `arg:"" optional:"" placeholder:"JSON-ARGS" help:"The arguments, a JSON object (default {})."`
	Headless string `placeholder:"FILE" env:"JP_HEADLESS" help:"Answer the server's questions (elicitations) from a script file, as jp query does (see docs/headless.md)."`
	FormatFlag
}

// Run calls the tool and prints its result; a result the server marks
// as an error exits 1 after printing it.
func (c *McpCallCmd) Run(rt *Runtime) error {
	args := json.RawMessage(strings.TrimSpace(c.Args))
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return &app.UserError{Msg: fmt.Sprintf("the arguments are not valid JSON: %q; give a JSON object, like '{\"message\": \"hi\"}'", c.Args)}
	}
	rt.Front = FrontOptions{Format: c.Format, Headless: c.Headless}
	rt.Paths.MCPLogin = true
	a, err := rt.App()
	if err != nil {
		return err
	}
	res, err := a.MCP.Call(rt.Ctx, rt.configInput(), c.Name, c.Tool, args)
	if err != nil {
		return err
	}
	if c.JSON() {
		var v any
		_ = json.Unmarshal(res.JSON, &v)
		if err := writeJSON(rt.Streams.Out, v); err != nil {
			return err
		}
	} else if res.Text != "" {
		fmt.Fprintln(rt.Streams.Out, res.Text)
	}
	if res.IsError {
		return &app.UserError{Msg: fmt.Sprintf("MCP server %s's tool %s reported an error", c.Name, c.Tool)}
	}
	return nil
}

// McpResourcesCmd is jp mcp resources: list a server's resources, or
// read one.
type McpResourcesCmd struct {
	Name string `arg:"" help:"The server, as named in [mcp.servers.<name>]."`
	URI  string `arg:"" optional:"" help:"Read this resource instead of listing them."`
	FormatFlag
}

// Run lists the resources (and resource templates), or prints one.
func (c *McpResourcesCmd) Run(rt *Runtime) error {
	rt.Paths.MCPLogin = true
	a, err := rt.App()
	if err != nil {
		return err
	}
	if c.URI != "" {
		contents, err := a.MCP.ReadResource(rt.Ctx, rt.configInput(), c.Name, c.URI)
		if err != nil {
			return err
		}
		if c.JSON() {
			if contents == nil {
				contents = []ports.MCPResourceContent{}
			}
			return writeJSON(rt.Streams.Out, contents)
		}
		for _, ct := range contents {
			if ct.Text != "" || len(ct.Blob) == 0 {
				fmt.Fprintln(rt.Streams.Out, strings.TrimRight(ct.Text, "\n"))
				continue
			}
			fmt.Fprintf(rt.Streams.Out, "[%s: %s, %d bytes of binary content]\n", ct.URI, ct.MIMEType, len(ct.Blob))
		}
		return nil
	}
	list, err := a.MCP.Resources(rt.Ctx, rt.configInput(), c.Name)
	if err != nil {
		return err
	}
	if c.JSON() {
		if list == nil {
			list = []ports.MCPResource{}
		}
		return writeJSON(rt.Streams.Out, list)
	}
	if len(list) == 0 {
		fmt.Fprintf(rt.Streams.Out, "MCP server %s offers no resources.\n", c.Name)
		return nil
	}
	tw := tabwriter.NewWriter(rt.Streams.Out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "URI\tNAME\tMIME TYPE\tDESCRIPTION")
	for _, r := range list {
		uri := r.URI
		if uri == "" {
			uri = r.Template + " (template)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", uri, r.Name, orDash(r.MIMEType), firstLine(r.Description, 60))
	}
	return tw.Flush()
}

// McpPromptsCmd is jp mcp prompts: list a server's prompts.
type McpPromptsCmd struct {
	Name string `arg:"" help:"The server, as named in [mcp.servers.<name>]."`
	FormatFlag
}

// Run lists the prompts with their arguments (required ones marked *).
func (c *McpPromptsCmd) Run(rt *Runtime) error {
	rt.Paths.MCPLogin = true
	a, err := rt.App()
	if err != nil {
		return err
	}
	list, err := a.MCP.Prompts(rt.Ctx, rt.configInput(), c.Name)
	if err != nil {
		return err
	}
	if c.JSON() {
		if list == nil {
			list = []ports.MCPPrompt{}
		}
		return writeJSON(rt.Streams.Out, list)
	}
	if len(list) == 0 {
		fmt.Fprintf(rt.Streams.Out, "MCP server %s offers no prompts.\n", c.Name)
		return nil
	}
	tw := tabwriter.NewWriter(rt.Streams.Out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "PROMPT\tARGUMENTS\tDESCRIPTION")
	for _, p := range list {
		var args []string
		for _, arg := range p.Arguments {
			n := arg.Name
			if arg.Required {
				n += "*"
			}
			args = append(args, n)
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\n", c.Name, p.Name, orDash(strings.Join(args, " ")), firstLine(p.Description, 60))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mcpPromptMessage renders jp q --mcp-prompt NAME/PROMPT with the query's
// words as key=value arguments.
func mcpPromptMessage(rt *Runtime, a *jpwire.App, ref string, words []string) (string, error) {
	name, prompt, ok := strings.Cut(ref, "/")
	if !ok || name == "" || prompt == "" {
		return "", &app.UserError{Msg: fmt.Sprintf("--mcp-prompt %q: give SERVER/PROMPT, like --mcp-prompt everything/simple-prompt (jp mcp prompts SERVER lists them)", ref)}
	}
	args := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return "", &app.UserError{Msg: fmt.Sprintf("--mcp-prompt %s: %q is not an argument; give the prompt's arguments as key=value", ref, w)}
		}
		args[k] = v
	}
	return a.MCP.PromptMessage(rt.Ctx, rt.configInput(), name, prompt, args)
}

// McpLoginCmd is jp mcp login.
type McpLoginCmd struct {
	Name string `arg:"" help:"The remote server, as named in [mcp.servers.<name>]."`
}

// Run logs in to the server through the user's browser and stores the
// tokens.
func (c *McpLoginCmd) Run(rt *Runtime) error {
	rt.Paths.MCPLogin = true
	a, err := rt.App()
	if err != nil {
		return err
	}
	n, err := a.MCP.Login(rt.Ctx, rt.configInput(), c.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Logged in to MCP server %s (%d tools); its tokens are stored for later runs. jp mcp logout %s removes them.\n", c.Name, n, c.Name)
	return nil
}

// McpLogoutCmd is jp mcp logout.
type McpLogoutCmd struct {
	Name string `arg:"" help:"The remote server, as named in [mcp.servers.<name>]."`
}

// Run removes the server's stored tokens.
func (c *McpLogoutCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	ok, err := a.MCP.Logout(rt.Ctx, rt.configInput(), c.Name)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintf(rt.Streams.Out, "No stored login for MCP server %s.\n", c.Name)
		return nil
	}
	fmt.Fprintf(rt.Streams.Out, "Logged out of MCP server %s: its stored tokens are removed.\n", c.Name)
	return nil
}
