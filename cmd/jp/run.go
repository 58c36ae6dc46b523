package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/headless"
	"github.com/jpcli/jp/adapters/logging"
	"github.com/jpcli/jp/adapters/terminal"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/internal/safetext"
	jpwire "github.com/jpcli/jp/wire"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "0.1.0-dev"

// Commit is the commit jp was built from, stamped by the Makefile with
// -ldflags "-X main.Commit=..." (git rev-parse); empty when not stamped.
var Commit string

// Streams are the process's standard streams.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// Runtime is what every command's Run receives.
type Runtime struct {
	Ctx     context.Context
	Streams Streams
	Globals *Globals
	Environ []string
	// Paths are the process's paths and streams; Paths.LaunchDir is the
	// directory jp was started in.
	Paths jpwire.Options

	// Front holds the front end's flags (set by jp query before App).
	Front FrontOptions

	app    *jpwire.App
	script *headless.Script
	// cleanup stops what the app started (MCP servers); finish calls it.
	cleanup func()
}

// FrontOptions are the output and prompt flags of the commands that talk.
type FrontOptions struct {
	Format   string
	Quiet    bool
	Headless string
}

// App builds the use cases on first use, so that commands that need none
// (jp --version, jp --help) stay fast.
func (rt *Runtime) App() (*jpwire.App, error) {
	if rt.app != nil {
		return rt.app, nil
	}
	opts := rt.Paths
	opts.Format, opts.Quiet, opts.Headless = rt.Front.Format, rt.Front.Quiet, rt.Front.Headless
	if opts.Headless != "" {
		h, cleanup, err := jpwire.InitializeHeadless(opts)
		if err != nil {
			return nil, &app.UserError{Msg: err.Error(), Err: err}
		}
		rt.app, rt.script, rt.cleanup = h.App, h.Script, cleanup
		rt.app.Workspaces.Log = opts.Log
		rt.app.Query.Log = opts.Log
		return rt.app, nil
	}
	a, cleanup, err := jpwire.InitializeCLI(opts)
	if err != nil {
		return nil, err
	}
	rt.app, rt.cleanup = a, cleanup
	a.Workspaces.Log = opts.Log
	a.Query.Log = opts.Log
	return a, nil
}

// finish checks, after the command ran, that a headless script was used
// up: a script that no longer matches the run must fail loudly.
func (rt *Runtime) finish(err error) error {
	if rt.cleanup != nil {
		rt.cleanup()
	}
	if err != nil || rt.script == nil {
		return err
	}
	if derr := rt.script.Done(); derr != nil {
		return &app.UserError{Msg: derr.Error(), Err: derr}
	}
	return nil
}

// Main runs jp with args and returns the process exit code.
func Main(args []string, raw Streams, environ []string) int {
	s, flush := safeStreams(raw)
	defer flush()
	if code, ok := quickVersion(args, environ, s); ok {
		return code
	}
	cli := &CLI{}
	exitCode := -1
	parser, err := kong.New(cli,
		kong.Name("jp"),
		kong.Description("jp is a terminal assistant for large language models: it keeps conversations per workspace, runs tools, and is extended by plugins."),
		kong.Writers(s.Out, s.Err),
		kong.Exit(func(code int) { exitCode = code; panic(exitSentinel{}) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, Summary: true}),
		kong.Vars{"version": versionLine()},
		kong.Help(pluginHelp(environ)),
	)
	if err != nil {
		fmt.Fprintf(s.Err, "jp: internal error: %v\n", err)
		return 1
	}
	if completing(environ) {
		return completeLine(parser, s, environ) // the shell asks for completions
	}
	args = helpArgs(args)
	if code, ok := dispatchPlugin(parser, args, raw, environ); ok {
		return code // a command plugin (docs/plugins.md); built-ins win
	}
	kctx, done, err := parseArgs(parser, args)
	if done {
		return exitCode // kong exited (--help, --version)
	}
	if err != nil {
		fmt.Fprintf(s.Err, "jp: %s\n", usageMessage(err))
		var pe *kong.ParseError
		if errors.As(err, &pe) {
			fmt.Fprintln(s.Err, helpHint(pe.Context.Command()))
		}
		return ExitUsage
	}

	if (cli.NoPersist || cli.NoPersistP) && !strings.HasPrefix(kctx.Command(), "query") {
		fmt.Fprintf(s.Err, "jp: --no-persist (-!, -P) is not supported by this jp yet outside jp query\n")
		return ExitUsage
	}
	paths, logger, err := processSetup(raw, environ, cli.Verbose, cli.LogFile, cli.LogFormat == "json")
	if err != nil {
		fmt.Fprintf(s.Err, "jp: %v\n", err)
		return ExitError
	}
	defer func() { _ = logger.Close() }()

	// The interrupt router owns SIGINT and SIGTERM from here to exit, so
	// Ctrl-C always does something: the topmost handler, else a graceful
	// shutdown (which cancels ctx), then shutdown, then exit 130.
	router := terminal.NewInterrupts(terminal.InterruptOptions{Countdown: paths.TTYIn != nil})
	router.Start()
	defer router.Close()
	paths.Router = router
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		select {
		case <-router.Shutdown():
			stop()
		case <-ctx.Done():
		}
	}()
	cli.shortCfg = shortCfgValues(args)
	rt := &Runtime{Ctx: ctx, Streams: s, Globals: &cli.Globals, Environ: environ, Paths: paths}
	logger.Debug("command", "name", kctx.Command())
	err = rt.finish(kctx.Run(rt))
	return reportError(s.Err, err)
}

// parseArgs parses args; done is true when kong exited instead (its
// exit function panics with exitSentinel after recording the code).
func parseArgs(parser *kong.Kong, args []string) (kctx *kong.Context, done bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(exitSentinel); ok {
				done = true
				return
			}
			panic(r)
		}
	}()
	kctx, err = parser.Parse(args)
	return kctx, false, err
}

type exitSentinel struct{}

// usageMessage is kong's parse error in jp's words: no internal tokens
// (<EOL>) and no doubled spaces.
func usageMessage(err error) string {
	msg := err.Error()
	msg = strings.ReplaceAll(msg, `but got "EOL" (<EOL>)`, "but got nothing")
	msg = strings.ReplaceAll(msg, "<EOL>", "end of line")
	return strings.Join(strings.Fields(msg), " ")
}

// helpHint names the help of the command a usage error is about.
func helpHint(command string) string {
	var words []string
	for _, w := range strings.Fields(command) {
		if strings.HasPrefix(w, "<") {
			break // an argument placeholder, not a command word
		}
		words = append(words, w)
	}
	return strings.Join(append(append([]string{"run 'jp"}, words...), "--help' for usage"), " ")
}

// safeStreams returns the streams every command writes its own lines to:
// stdout and stderr through the one output sanitiser, since those lines
// carry stored, model, tool, plugin and provider text (titles, answers,
// paths, error bodies, a plugin's exit reason). Only the printer (which
// sanitises what it writes and adds its own styles) and the terminal
// prompts get the raw streams, through jpwire.Options. flush writes what
// the sanitisers hold back (a CR or a cut UTF-8 sequence at the end).
func safeStreams(raw Streams) (Streams, func()) {
	out, errw := safetext.NewWriter(raw.Out), safetext.NewWriter(raw.Err)
	return Streams{In: raw.In, Out: out, Err: errw}, func() {
		_ = out.Flush()
		_ = errw.Flush()
	}
}

// dataDir is <data> = $XDG_DATA_HOME/jp.
func dataDir(env map[string]string) string {
	return filepath.Join(xdgDir(env, "XDG_DATA_HOME", ".local/share"), "jp")
}

// processSetup resolves what every command needs from the process: the
// launch directory, the XDG paths, the streams and the terminal, and the
// logger (stderr plus <data>/logs/jp.log). Main and plugin runs share it.
// processSetup reads the paths and builds the logger: logFile is
// --log-file ("" the data directory's logs/jp.log, "-" none), logJSON is
// --log-format json.
func processSetup(s Streams, environ []string, verbosity int, logFile string, logJSON bool) (jpwire.Options, *logging.Logger, error) {
	env := envMap(environ)
	launch, err := os.Getwd()
	if err != nil {
		return jpwire.Options{}, nil, fmt.Errorf("cannot read the current directory: %w", err)
	}
	paths := jpwire.Options{
		DataDir:   dataDir(env),
		ConfigDir: filepath.Join(xdgDir(env, "XDG_CONFIG_HOME", ".config"), "jp"),
		LaunchDir: launch,
		Home:      homeDir(env),
		Stdout:    s.Out, Stderr: s.Err,
		Editor:  findEditor(env),
		Pager:   env["PAGER"],
		Session: terminalSession(env),
		Environ: environ,
	}
	if v := strings.TrimSpace(env[fsstore.MaxEventsEnv]); v != "" {
		if paths.MaxEventsBytes, err = fsstore.ParseMaxEventsBytes(v); err != nil {
			return jpwire.Options{}, nil, err
		}
	}
	terminalStreams(&paths, s)
	o := logging.Options{File: filepath.Join(paths.DataDir, "logs", "jp.log"), JSON: logJSON, Verbosity: verbosity}
	switch logFile {
	case "":
	case "-":
		o.File = ""
	default:
		debug := logging.Level(2) // an explicit log file keeps debug records
		o.File, o.FileLevel = logFile, &debug
	}
	logger := logging.NewWithOptions(s.Err, o)
	paths.Log = logger.Logger
	return paths, logger, nil
}

// terminalSession names the terminal session jp runs in: $JP_SESSION, else
// the tmux pane ($TMUX_PANE, qualified by the tmux server so two servers'
// %0 panes differ); "" outside both.
func terminalSession(env map[string]string) string {
	if v := strings.TrimSpace(env["JP_SESSION"]); v != "" {
		return "jp:" + v
	}
	if v := strings.TrimSpace(env["TMUX_PANE"]); v != "" {
		server, _, _ := strings.Cut(env["TMUX"], ",")
		return "tmux:" + server + ":" + v
	}
	return ""
}

// terminalStreams fills in which streams are terminals, the terminal used
// for prompts (stdin and stderr must both be terminals) and its size.
func terminalStreams(o *jpwire.Options, s Streams) {
	out, _ := s.Out.(*os.File)
	errf, _ := s.Err.(*os.File)
	in, _ := s.In.(*os.File)
	o.StdoutTTY = out != nil && term.IsTerminal(int(out.Fd()))
	o.StderrTTY = errf != nil && term.IsTerminal(int(errf.Fd()))
	if in != nil && term.IsTerminal(int(in.Fd())) && o.StderrTTY {
		o.TTYIn, o.TTYOut = in, errf
	}
	for _, f := range []*os.File{out, errf} {
		if f != nil && term.IsTerminal(int(f.Fd())) {
			if w, h, err := term.GetSize(int(f.Fd())); err == nil {
				o.Width, o.Height = w, h
				break
			}
		}
	}
}

// findEditor picks the external editor: $JP_EDITOR, $VISUAL, $EDITOR, then
// the first of editor, nano and vi found on $PATH; "" when there is none.
func findEditor(env map[string]string) string {
	if e := firstNonEmpty(strings.TrimSpace(env["JP_EDITOR"]), strings.TrimSpace(env["VISUAL"]), strings.TrimSpace(env["EDITOR"])); e != "" {
		return e
	}
	for _, name := range []string{"editor", "nano", "vi"} {
		for _, dir := range filepath.SplitList(env["PATH"]) {
			if dir == "" {
				continue
			}
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	return ""
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// homeDir is $HOME, or the system's idea of it.
func homeDir(env map[string]string) string {
	if h := env["HOME"]; h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

func xdgDir(env map[string]string, key, fallback string) string {
	if v := env[key]; v != "" && filepath.IsAbs(v) {
		return v
	}
	return filepath.Join(homeDir(env), fallback)
}
