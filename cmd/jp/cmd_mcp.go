package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jpcli/jp/app"
)

// McpCmd is jp mcp: the MCP servers of [mcp.servers.<name>] (docs/mcp.md).
type McpCmd struct {
	Ls        McpLsCmd        `cmd:"" aliases:"list" help:"List the configured MCP servers."`
	Check     McpCheckCmd     `cmd:"" help:"Start each enabled MCP server (or only NAME), list its tools as the model sees them, and stop it."`
	Call      McpCallCmd      `cmd:"" help:"Call one tool of MCP server NAME and print its result."`
	Resources McpResourcesCmd `cmd:"" help:"List the resources of MCP server NAME, or read one."`
	Prompts   McpPromptsCmd   `cmd:"" help:"List the prompts of MCP server NAME (jp q --mcp-prompt NAME/PROMPT starts a query from one)."`
	Login     McpLoginCmd     `cmd:"" help:"Log in to remote MCP server NAME through the browser (OAuth) and store its tokens."`
	Logout    McpLogoutCmd    `cmd:"" help:"Remove the stored tokens of remote MCP server NAME."`
}

// McpLsCmd is jp mcp ls.
type McpLsCmd struct {
	FormatFlag
}

// Run lists the configured servers. It starts nothing.
func (c *McpLsCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	list, err := a.MCP.List(rt.Ctx, rt.configInput())
	if err != nil {
		return err
	}
	if c.JSON() {
		if list == nil {
			list = []app.MCPServerView{}
		}
		return writeJSON(rt.Streams.Out, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(rt.Streams.Out, "No MCP servers configured: add an [mcp.servers.<name>] table with a command (see docs/mcp.md).")
		return nil
	}
	tw := tabwriter.NewWriter(rt.Streams.Out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tENABLED\tCOMMAND/URL\tENV")
	for _, s := range list {
		env := strings.Join(s.EnvKeys, ",")
		if env == "" {
			env = "-"
		}
		target := strings.Join(s.Command, " ")
		if s.URL != "" {
			target = s.URL
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, yesNo(s.Enabled), target, env)
	}
	return tw.Flush()
}

// McpCheckCmd is jp mcp check.
type McpCheckCmd struct {
	Name string `arg:"" optional:"" help:"Check only this server (even if it is disabled)."`
	FormatFlag
}

// mcpCheckJSON is one server of jp mcp check --format json.
type mcpCheckJSON struct {
	Name  string        `json:"name"`
	Dir   string        `json:"dir"`
	Tools []mcpToolJSON `json:"tools"`
	Error string        `json:"error,omitempty"`
}

type mcpToolJSON struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Run starts, lists and stops the servers; it fails when one failed.
func (c *McpCheckCmd) Run(rt *Runtime) error {
	rt.Paths.MCPLogin = true
	a, err := rt.App()
	if err != nil {
		return err
	}
	checks, err := a.MCP.Check(rt.Ctx, rt.configInput(), c.Name)
	if err != nil {
		return err
	}
	failed := 0
	out := make([]mcpCheckJSON, 0, len(checks))
	for _, ch := range checks {
		j := mcpCheckJSON{Name: ch.Name, Dir: ch.Dir, Tools: []mcpToolJSON{}}
		for _, t := range ch.Tools {
			j.Tools = append(j.Tools, mcpToolJSON{Name: t.Name, Description: t.Description})
		}
		if ch.Err != nil {
			failed++
			j.Error = ch.Err.Error()
		}
		out = append(out, j)
	}
	if c.JSON() {
		if err := writeJSON(rt.Streams.Out, out); err != nil {
			return err
		}
	} else {
		printChecks(rt, out)
	}
	if failed > 0 {
		return &app.UserError{Msg: fmt.Sprintf("%d of %d MCP servers failed the check; fix their mcp.servers.<name> tables or disable them with enable = false", failed, len(checks))}
	}
	return nil
}

func printChecks(rt *Runtime, checks []mcpCheckJSON) {
	w := rt.Streams.Out
	for i, ch := range checks {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if ch.Error != "" {
			fmt.Fprintf(w, "%s: failed: %s\n", ch.Name, ch.Error)
			continue
		}
		fmt.Fprintf(w, "%s: ok, %d tools (started in %s, now stopped)\n", ch.Name, len(ch.Tools), ch.Dir)
		tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		for _, t := range ch.Tools {
			fmt.Fprintf(tw, "  %s\t%s\n", t.Name, firstLine(t.Description, 80))
		}
		_ = tw.Flush()
	}
}

// firstLine is the first line of s, cut to max runes.
func firstLine(s string, max int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
