package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/jpcli/jp/adapters/logging"
	"github.com/jpcli/jp/app"
	jpwire "github.com/jpcli/jp/wire"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "0.1.0-dev"

// Streams are the process's standard streams.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// Runtime is what every command's Run receives.
type Runtime struct {
	Ctx       context.Context
	Streams   Streams
	Globals   *Globals
	LaunchDir string
	Environ   []string
	Paths     jpwire.Options
	Log       *logging.Logger

	app     *app.App
	cleanup func()
}

// App builds the use cases on first use, so that commands that need none
// (jp --version, jp --help) stay fast.
func (rt *Runtime) App() (*app.App, error) {
	if rt.app != nil {
		return rt.app, nil
	}
	a, cleanup, err := jpwire.InitializeCLI(rt.Paths)
	if err != nil {
		return nil, err
	}
	rt.app, rt.cleanup = a, cleanup
	return a, nil
}

// Main runs jp with args and returns the process exit code.
func Main(args []string, s Streams, environ []string) int {
	cli := &CLI{}
	exitCode := -1
	parser, err := kong.New(cli,
		kong.Name("jp"),
		kong.Description("jp is a terminal assistant for large language models: it keeps conversations per workspace, runs tools, and is extended by plugins."),
		kong.Writers(s.Out, s.Err),
		kong.Exit(func(code int) { exitCode = code; panic(exitSentinel{}) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, Summary: true}),
		kong.Vars{"version": Version},
	)
	if err != nil {
		fmt.Fprintf(s.Err, "jp: internal error: %v\n", err)
		return 1
	}
	var kctx *kong.Context
	code, done := func() (code int, done bool) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(exitSentinel); ok {
					code, done = exitCode, true
					return
				}
				panic(r)
			}
		}()
		kctx, err = parser.Parse(args)
		return 0, false
	}()
	if done {
		return code
	}
	if err != nil {
		fmt.Fprintf(s.Err, "jp: %v\n", err)
		var pe *kong.ParseError
		if errors.As(err, &pe) {
			fmt.Fprintf(s.Err, "run 'jp %s --help' for usage\n", strings.TrimSpace(strings.TrimPrefix(pe.Context.Command(), "<")))
		}
		return ExitUsage
	}

	env := envMap(environ)
	launch, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(s.Err, "jp: cannot read the current directory: %v\n", err)
		return 1
	}
	paths := jpwire.Options{
		DataDir:   filepath.Join(xdgDir(env, "XDG_DATA_HOME", ".local/share"), "jp"),
		ConfigDir: filepath.Join(xdgDir(env, "XDG_CONFIG_HOME", ".config"), "jp"),
	}
	logger := logging.New(s.Err, filepath.Join(paths.DataDir, "logs", "jp.log"), cli.Verbose)
	defer func() { _ = logger.Close() }()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rt := &Runtime{Ctx: ctx, Streams: s, Globals: &cli.Globals, LaunchDir: launch, Environ: environ, Paths: paths, Log: logger}
	defer func() {
		if rt.cleanup != nil {
			rt.cleanup()
		}
	}()
	logger.Debug("command", "name", kctx.Command())
	err = kctx.Run(rt)
	return reportError(s.Err, err)
}

type exitSentinel struct{}

func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

func xdgDir(env map[string]string, key, fallback string) string {
	if v := env[key]; v != "" && filepath.IsAbs(v) {
		return v
	}
	home := env["HOME"]
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, fallback)
}
