package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jpcli/jp/domain/workspace"
	jpwire "github.com/jpcli/jp/wire"
)

// InitCmd is jp init.
type InitCmd struct {
	Dir string `arg:"" optional:"" type:"path" help:"Directory to make a workspace (default: current directory)."`
}

// Run creates the workspace.
func (c *InitCmd) Run(rt *Runtime) error {
	dir := c.Dir
	if dir == "" {
		dir = rt.Paths.LaunchDir
	}
	a, err := rt.App()
	if err != nil {
		return err
	}
	f, err := a.Workspaces.Init(rt.Ctx, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Initialized jp workspace %s in %s\n", f.ID, filepath.Join(f.Root, ".jp"))
	return nil
}

// WorkspaceCmd is jp workspace (alias w).
type WorkspaceCmd struct {
	Ls   WorkspaceLsCmd   `cmd:"" default:"withargs" aliases:"list" help:"List known workspaces, their checkouts and whether each is live (the default: bare jp w lists)."`
	Show WorkspaceShowCmd `cmd:"" help:"Show one workspace (default: the current one)."`
}

// WorkspaceLsCmd is jp workspace ls.
type WorkspaceLsCmd struct {
	FormatFlag
}

// Run lists workspaces. It writes nothing to disk.
func (c *WorkspaceLsCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	list, err := a.Workspaces.List(rt.Ctx, rt.Paths.LaunchDir)
	if err != nil {
		return err
	}
	if c.JSON() {
		return writeJSON(rt.Streams.Out, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(rt.Streams.Out, "No workspaces yet: run jp init in a project directory.")
		return nil
	}
	tw := tabwriter.NewWriter(rt.Streams.Out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSLUG\tCONVERSATIONS\tCHECKOUT\tLIVE\tLAST USED")
	for _, w := range list {
		id := string(w.ID)
		if w.Current {
			id += "*"
		}
		if len(w.Checkouts) == 0 {
			fmt.Fprintf(tw, "%s\t%s\t%d\t-\t-\t-\n", id, w.Slug, w.Conversations)
		}
		for i, co := range w.Checkouts {
			if i > 0 {
				fmt.Fprintf(tw, "\t\t\t%s\t%s\t%s\n", co.Path, yesNo(co.Live), lastUsed(co.LastUsed))
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", id, w.Slug, w.Conversations, co.Path, yesNo(co.Live), lastUsed(co.LastUsed))
		}
	}
	return tw.Flush()
}

// WorkspaceShowCmd is jp workspace show.
type WorkspaceShowCmd struct {
	Target string `arg:"" optional:"" placeholder:"ID|PATH" help:"Workspace ID or a path inside a checkout (default: -w or the current directory)."`
	FormatFlag
}

// Run shows one workspace.
func (c *WorkspaceShowCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	target := c.Target
	if target == "" {
		target = rt.Globals.Workspace
	}
	w, err := a.Workspaces.Show(rt.Ctx, target, rt.Paths.LaunchDir)
	if err != nil {
		return err
	}
	if c.JSON() {
		return writeJSON(rt.Streams.Out, w)
	}
	out := rt.Streams.Out
	fmt.Fprintf(out, "Workspace:     %s\n", w.ID)
	fmt.Fprintf(out, "Slug:          %s\n", w.Slug)
	fmt.Fprintf(out, "Storage:       %s\n", w.Silo)
	fmt.Fprintf(out, "Conversations: %d\n", w.Conversations)
	fmt.Fprintf(out, "Checkouts:\n")
	if len(w.Checkouts) == 0 {
		fmt.Fprintf(out, "  (none recorded)\n")
	}
	for _, co := range w.Checkouts {
		state := "live"
		if !co.Live {
			state = "not live (gone, or no longer holds this ID)"
		}
		fmt.Fprintf(out, "  %s  %s, last used %s\n", co.Path, state, lastUsed(co.LastUsed))
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// lastUsed is t in local time to the minute, "-" when never.
func lastUsed(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// open selects and registers the checkout a workspace command works in.
func (rt *Runtime) open(a *jpwire.App) (workspace.Location, error) {
	o, err := a.Workspaces.OpenOrDefault(rt.Ctx, rt.Globals.Workspace, rt.Paths.LaunchDir, true)
	return o.Location, err
}

// trimTitle is a title for one line of output: surrounding space trimmed,
// line breaks and tabs within it as spaces (the output stream makes the
// rest safe).
func trimTitle(s string) string {
	s = strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s))
	if s == "" {
		return "(untitled)"
	}
	return s
}
