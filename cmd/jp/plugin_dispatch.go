package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/jpcli/jp/adapters/terminal"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/app/pluginhost"
	"github.com/jpcli/jp/domain/plugin"
	jpwire "github.com/jpcli/jp/wire"
)

// pluginArgs are the global flags before a plugin's command path, and the
// words from the path on.
type pluginArgs struct {
	workspace string
	verbose   int
	cfg       []string
	format    string
	quiet     bool
	headless  string
	words     []string
}

// parsePluginArgs reads jp's global flags (-w, -v, -c/--cfg) and the plugin
// front-end flags (--format, --quiet, --headless) up to the first word.
// ok is false for anything else before it (kong reports it).
func parsePluginArgs(args []string) (pluginArgs, bool) {
	var pa pluginArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		takeValue := func() bool {
			if hasVal {
				return true
			}
			if i+1 >= len(args) {
				return false
			}
			i++
			val = args[i]
			return true
		}
		switch {
		case !strings.HasPrefix(a, "-"):
			pa.words = args[i:]
			return pa, true
		case name == "-w" || name == "--workspace":
			if !takeValue() {
				return pa, false
			}
			pa.workspace = val
		case name == "--cfg" || name == "-c":
			if !takeValue() {
				return pa, false
			}
			pa.cfg = append(pa.cfg, val)
		case name == "--format":
			if !takeValue() || (val != "text" && val != "json") {
				return pa, false
			}
			pa.format = val
		case name == "--headless":
			if !takeValue() {
				return pa, false
			}
			pa.headless = val
		case a == "--quiet":
			pa.quiet = true
		case a == "--verbose":
			pa.verbose++
		case len(a) > 1 && strings.Trim(a[1:], "v") == "":
			pa.verbose += len(a) - 1
		default:
			return pa, false
		}
	}
	return pa, true
}

// isBuiltin reports whether words name a built-in command (or an argument
// of one). An unknown word directly under a built-in group (jp
// conversation export) is not built in: a plugin may claim it.
func isBuiltin(model *kong.Application, words []string) bool {
	node := model.Node
	for i, w := range words {
		if strings.HasPrefix(w, "-") {
			return true
		}
		child := findCommand(node, w)
		if child == nil {
			return i > 0 && !hasCommands(node)
		}
		node = child
	}
	return true
}

func findCommand(n *kong.Node, name string) *kong.Node {
	for _, c := range n.Children {
		if c.Type != kong.CommandNode {
			continue
		}
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

func hasCommands(n *kong.Node) bool {
	for _, c := range n.Children {
		if c.Type == kong.CommandNode {
			return true
		}
	}
	return false
}

// dispatchPlugin runs the command plugin args name, when they name no
// built-in command (docs/plugins.md): it returns jp's exit code and true. It
// returns false to let kong parse args (built-ins win; an unknown command
// no plugin claims is kong's usage error).
func dispatchPlugin(parser *kong.Kong, args []string, s Streams, environ []string) (int, bool) {
	pa, ok := parsePluginArgs(args)
	if !ok || len(pa.words) == 0 || isBuiltin(parser.Model, pa.words) {
		return 0, false
	}
	bin, rest, found, err := discovery(environ).Route(context.Background(), pa.words, searchPath(environ))
	if err != nil || !found {
		return 0, false
	}
	return runPlugin(bin, rest, pa, s, environ), true
}

// discovery is plugin discovery alone, without the app: jp -h and the
// routing of commands that are not built in only read files.
func discovery(environ []string) *app.Plugins {
	return jpwire.InitializePlugins(jpwire.Options{DataDir: dataDir(envMap(environ))})
}

// runPlugin sets up what Main sets up for a command (paths, streams, the
// log), then runs the plugin, or prints its help for -h.
func runPlugin(bin plugin.Binary, rest []string, pa pluginArgs, raw Streams, environ []string) int {
	s, flush := safeStreams(raw)
	defer flush()
	env := envMap(environ)
	paths, logger, err := processSetup(raw, environ, pa.verbose, "", false)
	if err != nil {
		fmt.Fprintf(s.Err, "jp: %v\n", err)
		return ExitError
	}
	defer func() { _ = logger.Close() }()
	// Plugin runs handle SIGINT/SIGTERM in pluginSignals (shutdown, then
	// kill); the router is present, unstarted, so every use case gets a
	// non-nil interrupt stack.
	paths.Router = terminal.NewInterrupts(terminal.InterruptOptions{Countdown: paths.TTYIn != nil})
	ctx, abort, stop := pluginSignals()
	defer stop()

	format := pa.format
	if format == "" {
		format = "text"
	}
	rt := &Runtime{
		Ctx: ctx, Streams: s, Globals: &Globals{Workspace: pa.workspace, Verbose: pa.verbose, Cfg: pa.cfg},
		Environ: environ, Paths: paths,
		Front: FrontOptions{Format: format, Quiet: pa.quiet, Headless: firstNonEmpty(pa.headless, env["JP_HEADLESS"])},
	}
	logger.Debug("command", "plugin", bin.Name(), "path", bin.Path)
	in := pluginhost.RunInput{
		Binary: bin, Args: rest, Target: pa.workspace, LaunchDir: paths.LaunchDir,
		UserConfigDir: paths.ConfigDir, Environ: environ, Overrides: pa.cfg,
		Verbosity: pa.verbose, OutputFormat: format, Log: logger.Logger, Abort: abort,
	}
	err = rt.finish(runPluginCmd(rt, in))
	var pe *pluginhost.ExitError
	if errors.As(err, &pe) {
		err = &exitError{code: pe.Code, msg: pe.Reason}
	}
	return reportError(s.Err, err)
}

// runPluginCmd runs the plugin, or prints its help for jp <plugin> -h.
func runPluginCmd(rt *Runtime, in pluginhost.RunInput) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	if len(in.Args) == 1 && (in.Args[0] == "-h" || in.Args[0] == "--help") {
		help, err := a.Plugins.Help(rt.Ctx, in)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(rt.Streams.Out, strings.TrimRight(help, "\n"))
		return err
	}
	return a.Plugins.Run(rt.Ctx, in)
}

// pluginSignals turns the first SIGINT or SIGTERM into a graceful
// shutdown (ctx ends: the plugin is sent shutdown) and the second into an
// abort (the plugin's process group is killed at once).
func pluginSignals() (ctx context.Context, abort <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ab := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for n := 0; ; {
			select {
			case <-sigs:
				n++
				switch n {
				case 1:
					cancel()
				case 2:
					close(ab)
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, ab, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// pluginHelp is kong's help printer with a Plugins section after the
// built-in commands of jp -h. It reads manifests; it runs nothing.
func pluginHelp(environ []string) kong.HelpPrinter {
	return func(options kong.HelpOptions, ctx *kong.Context) error {
		if err := kong.DefaultHelpPrinter(options, ctx); err != nil {
			return err
		}
		if sel := ctx.Selected(); sel != nil && sel.Type == kong.CommandNode {
			return nil
		}
		bins, err := discovery(environ).Discover(context.Background(), searchPath(environ))
		if err != nil || len(bins) == 0 {
			return nil
		}
		fmt.Fprintln(ctx.Stdout, "\nPlugins:")
		for _, b := range bins {
			if b.Shadowed {
				continue
			}
			desc := b.Description()
			if desc == "" {
				desc = "(" + b.FileName() + ", no manifest)"
			}
			fmt.Fprintf(ctx.Stdout, "  %-26s %s\n", strings.Join(b.Command(), " "), desc)
		}
		fmt.Fprintln(ctx.Stdout, "\nRun \"jp <plugin> -h\" for a plugin's help, \"jp plugin ls\" for its path and trust.")
		return nil
	}
}
