package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/safetext"
	jpwire "github.com/jpcli/jp/wire"
)

// initSharingLine is what jp init says about what git shares
// (docs/storage.md, "What is shared through git").
const initSharingLine = "Conversations under .jp/ are meant to be committed; what you attach from outside the checkout (other files, cmd: output, URLs) stays in your user-local copy."

// InitCmd is jp init.
type InitCmd struct {
	Dir      string  `arg:"" optional:"" type:"path" help:"Directory to make a workspace (default: current directory)."`
	UserName *string `name:"user-name" placeholder:"NAME" env:"JP_USER_NAME" help:"Your name for conversations (user.name), recorded in your user configuration file without asking. Without it jp init asks on a terminal (or a --headless script's text @init:user_name step), unless user.name is already set there."`
	Headless string  `placeholder:"FILE" env:"JP_HEADLESS" help:"Answer jp init's question from a script file (see docs/headless.md)."`
}

// Run creates the workspace.
func (c *InitCmd) Run(rt *Runtime) error {
	dir := c.Dir
	if dir == "" {
		dir = rt.Paths.LaunchDir
	}
	rt.Front.Headless = c.Headless
	a, err := rt.App()
	if err != nil {
		return err
	}
	in := rt.configInput()
	in.Target = ""
	before, err := a.Trust.BeforeInit(rt.Ctx, dir, in)
	if err != nil {
		return err
	}
	f, err := a.Workspaces.Init(rt.Ctx, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Initialized jp workspace %s in %s\n", f.ID, filepath.Join(f.Root, ".jp"))
	fmt.Fprintln(rt.Streams.Out, initSharingLine)
	if err := c.userName(rt, a); err != nil {
		return err
	}
	// Running jp init here is trusting the directory; what it already
	// held (a clone's configuration) is named, so the trust is not blind.
	if err := a.Trust.TrustRoot(rt.Ctx, f.Root, in); err != nil {
		return fmt.Errorf("trust the new workspace: %w", err)
	}
	if len(before.Held) > 0 {
		fmt.Fprintln(rt.Streams.Out, "Trusted the configuration this directory already held, which makes jp:")
		for _, h := range before.Held {
			fmt.Fprintf(rt.Streams.Out, "  %s  [%s]\n", safetext.String(h.Does), safetext.String(h.Key))
		}
		fmt.Fprintln(rt.Streams.Out, "(jp workspace trust --revoke undoes it.)")
	}
	return nil
}

// WorkspaceCmd is jp workspace (alias w).
type WorkspaceCmd struct {
	Ls    WorkspaceLsCmd    `cmd:"" default:"withargs" aliases:"list" help:"List known workspaces, their checkouts and whether each is live (the default: bare jp w lists)."`
	Show  WorkspaceShowCmd  `cmd:"" help:"Show one workspace (default: the current one)."`
	Trust WorkspaceTrustCmd `cmd:"" help:"Trust this checkout: apply its configuration keys that run programs or send data (see docs/security.md)."`
}

// WorkspaceTrustCmd is jp workspace trust.
type WorkspaceTrustCmd struct {
	Revoke bool `help:"Stop trusting the checkout: its keys that run or send are ignored again."`
	Show   bool `help:"List the checkout's keys that run or send, and whether they are trusted; change nothing."`
	FormatFlag
}

// Run records, revokes or shows the trust of the selected checkout.
func (c *WorkspaceTrustCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	in := rt.configInput()
	var r config.TrustReview
	switch {
	case c.Revoke && c.Show:
		return &app.UsageError{Msg: "--revoke and --show do not go together: pick one"}
	case c.Revoke:
		var found bool
		if r, found, err = a.Trust.Revoke(rt.Ctx, in); err != nil {
			return err
		}
		if c.JSON() {
			return writeJSON(rt.Streams.Out, trustJSON(r))
		}
		if !found {
			fmt.Fprintf(rt.Streams.Out, "%s was not trusted; nothing changed.\n", safetext.String(r.Root))
			return nil
		}
		fmt.Fprintf(rt.Streams.Out, "No longer trusted: %s (its keys that run or send are ignored again: %d).\n",
			safetext.String(r.Root), len(r.Held))
		return nil
	case c.Show:
		r, err = a.Trust.Review(rt.Ctx, in)
	default:
		r, err = a.Trust.Trust(rt.Ctx, in)
	}
	if err != nil {
		return err
	}
	if c.JSON() {
		return writeJSON(rt.Streams.Out, trustJSON(r))
	}
	out := rt.Streams.Out
	state := "not trusted"
	if r.Trusted {
		state = "trusted"
	}
	if !c.Show {
		state = "now trusted"
	}
	fmt.Fprintf(out, "Checkout %s: %s.\n", safetext.String(r.Root), state)
	if len(r.Held) == 0 {
		fmt.Fprintln(out, "Its configuration runs no program and sends nothing anywhere.")
		return nil
	}
	fmt.Fprintln(out, "Its configuration makes jp:")
	for _, h := range r.Held {
		fmt.Fprintf(out, "  %s  [%s in %s]\n", safetext.String(h.Does), safetext.String(h.Key), safetext.String(h.Source))
	}
	return nil
}

// trustJSON is jp workspace trust --format json.
func trustJSON(r config.TrustReview) any {
	type key struct {
		Key    string `json:"key"`
		Source string `json:"source"`
		Does   string `json:"does"`
	}
	keys := make([]key, 0, len(r.Held))
	for _, h := range r.Held {
		keys = append(keys, key{h.Key, h.Source, h.Does})
	}
	return struct {
		Checkout string `json:"checkout"`
		Trusted  bool   `json:"trusted"`
		Hash     string `json:"hash"`
		Keys     []key  `json:"keys"`
	}{r.Root, r.Trusted, r.Hash, keys}
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

// openApp is rt.App and then rt.open: the use cases and the workspace a
// command works in.
func (rt *Runtime) openApp() (*jpwire.App, workspace.Location, error) {
	a, err := rt.App()
	if err != nil {
		return nil, workspace.Location{}, err
	}
	loc, err := rt.open(a)
	return a, loc, err
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
