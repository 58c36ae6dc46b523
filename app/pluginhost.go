package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// DefaultReadyTimeout is how long a plugin has to answer init with ready.
const DefaultReadyTimeout = 10 * time.Second

// PluginHost is the use case that runs a command plugin (SPEC 7): admit
// it, spawn it with init, and serve its requests until it exits. The
// message loop is a router from message type to a small handler over
// ports (plugin_router.go, plugin_handlers.go, plugin_prompt.go).
type PluginHost struct {
	plugins  *Plugins
	ws       *Workspaces
	cfg      *Config
	reg      ports.WorkspaceRegistry
	loader   ports.ConfigLoader
	store    ports.ConversationStore
	drafts   ports.DraftStore
	locker   ports.Locker
	printer  ports.Printer
	prompter ports.Prompter
	catalog  ports.PluginCatalog
	spawner  ports.PluginSpawner
	clock    ports.Clock
}

// PluginHostDeps are PluginHost's ports.
type PluginHostDeps struct {
	Registry ports.WorkspaceRegistry
	Loader   ports.ConfigLoader
	Store    ports.ConversationStore
	Drafts   ports.DraftStore
	Locker   ports.Locker
	Printer  ports.Printer
	Prompter ports.Prompter
	Catalog  ports.PluginCatalog
	Spawner  ports.PluginSpawner
	Clock    ports.Clock
}

// NewPluginHost builds the use case.
func NewPluginHost(plugins *Plugins, ws *Workspaces, cfg *Config, d PluginHostDeps) *PluginHost {
	return &PluginHost{plugins: plugins, ws: ws, cfg: cfg, reg: d.Registry, loader: d.Loader, store: d.Store,
		drafts: d.Drafts, locker: d.Locker, printer: d.Printer, prompter: d.Prompter, catalog: d.Catalog,
		spawner: d.Spawner, clock: d.Clock}
}

// PluginRunInput is one run of a routed plugin.
type PluginRunInput struct {
	// Binary is the routed plugin; Args the words after its command path.
	Binary plugin.Binary
	Args   []string
	// Target and LaunchDir select the checkout (-w and the cwd).
	Target    string
	LaunchDir string
	// Config layers.
	UserConfigDir string
	Environ       []string
	Overrides     []string
	// Verbosity is the -v count; OutputFormat is "text" or "json".
	Verbosity    int
	OutputFormat string
	// Log receives the plugin's stderr, its log requests and, at -vvv,
	// the message trace. nil discards.
	Log *slog.Logger
	// ReadyTimeout bounds the wait for ready (and for a describe answer);
	// 0 means DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// Abort, when closed, kills the plugin at once (a second Ctrl-C); ctx
	// ending asks it to shut down gracefully.
	Abort <-chan struct{}
}

// PluginExitError is a plugin's exit with a non-zero code: jp exits with
// Code, printing Reason when there is one.
type PluginExitError struct {
	Plugin string
	Code   int
	Reason string
}

func (e *PluginExitError) Error() string {
	if e.Reason != "" {
		return e.Reason
	}
	return fmt.Sprintf("plugin %s exited with code %d", e.Plugin, e.Code)
}

// Run admits and runs the plugin until it exits. It returns nil for exit
// code 0, a *PluginExitError for another code, an error wrapping
// ports.ErrInterrupted when the user stopped it (ctx ended, or Ctrl-C in
// a prompt: the plugin was sent shutdown), and a *UserError naming the
// plugin when it broke the protocol or died without exit.
func (h *PluginHost) Run(ctx context.Context, in PluginRunInput) error {
	in = withDefaults(in)
	if err := plugin.CheckRunnable(in.Binary); err != nil {
		return &UserError{Msg: err.Error(), Err: err}
	}
	loc, err := h.ws.Open(ctx, in.Target, in.LaunchDir)
	if err != nil {
		return err
	}
	res, err := h.loader.Load(ctx, ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: loc.Root, LaunchDir: in.LaunchDir,
		Env: in.Environ, Overrides: in.Overrides,
	})
	if err != nil {
		return err
	}
	if err := h.admit(ctx, in, res.Config, loc.Root); err != nil {
		return err
	}
	init, err := h.initMessage(ctx, in, loc, res)
	if err != nil {
		return err
	}
	conn, err := h.spawner.Spawn(ctx, h.spec(in, loc.Root))
	if err != nil {
		return &UserError{Msg: err.Error(), Err: err}
	}
	s := newSession(h, in, conn, loc, res)
	return s.run(ctx, init, res.Config.Plugins.ShutdownTimeout())
}

func withDefaults(in PluginRunInput) PluginRunInput {
	if in.ReadyTimeout <= 0 {
		in.ReadyTimeout = DefaultReadyTimeout
	}
	if in.Log == nil {
		in.Log = slog.New(slog.DiscardHandler)
	}
	if in.Args == nil {
		in.Args = []string{}
	}
	if in.OutputFormat == "" {
		in.OutputFormat = "text"
	}
	return in
}

// spec is how the plugin is started: in dir, with jp's environment.
func (h *PluginHost) spec(in PluginRunInput, dir string) ports.PluginSpec {
	name := in.Binary.Name()
	log := in.Log
	return ports.PluginSpec{
		Name: name, Path: in.Binary.Path, Dir: dir, Env: in.Environ,
		Stderr: func(line string) { log.Debug("plugin stderr", "plugin", name, "line", line) },
	}
}

// initMessage builds init for a single-scope plugin.
func (h *PluginHost) initMessage(ctx context.Context, in PluginRunInput, loc workspace.Location, res config.Resolved) (plugin.Init, error) {
	opts := []byte("{}")
	if o := res.Config.Plugin(in.Binary.Name()).Options; len(o) > 0 {
		b, err := json.Marshal(o)
		if err != nil {
			return plugin.Init{}, fmt.Errorf("encode plugins.command.%s.options: %w", in.Binary.Name(), err)
		}
		opts = b
	}
	tree, err := json.Marshal(res.Tree)
	if err != nil {
		return plugin.Init{}, fmt.Errorf("encode configuration for plugin %s: %w", in.Binary.Name(), err)
	}
	silo := ""
	if k, err := h.reg.Lookup(ctx, loc.ID); err == nil {
		silo = k.Silo
	}
	return plugin.Init{
		Version: plugin.ProtocolVersion, Options: opts, Args: in.Args,
		LogLevel: logLevel(in.Verbosity), OutputFormat: in.OutputFormat,
		Paths:     plugin.Paths{UserData: h.reg.DataDir(), UserConfig: in.UserConfigDir, UserWorkspace: silo},
		Workspace: &plugin.WorkspaceInfo{Root: loc.Root, Storage: filepath.Join(loc.Root, ".jp"), ID: string(loc.ID)},
		Config:    tree,
	}, nil
}

// logLevel maps the -v count to init's log_level: no -v is warn.
func logLevel(verbosity int) plugin.LogLevel {
	return plugin.LogLevel(min(max(verbosity, 0)+1, int(plugin.LogLevelTrace)))
}

// Help returns the help of jp <plugin> -h: the manifest's help when it
// has one (nothing runs), else the help of a describe answer, after
// admission.
func (h *PluginHost) Help(ctx context.Context, in PluginRunInput) (string, error) {
	in = withDefaults(in)
	b := in.Binary
	if b.Manifest != nil && b.Manifest.Help != "" && b.ManifestFrom == "file" {
		return b.Manifest.Help, nil
	}
	if err := plugin.CheckRunnable(b); err != nil {
		return "", &UserError{Msg: err.Error(), Err: err}
	}
	res, err := h.cfg.Load(ctx, ConfigInput{Target: in.Target, LaunchDir: in.LaunchDir, UserConfigDir: in.UserConfigDir, Environ: in.Environ, Overrides: in.Overrides})
	if err != nil {
		return "", err
	}
	if err := h.admit(ctx, in, res.Config, in.LaunchDir); err != nil {
		return "", err
	}
	m, err := h.describe(ctx, in, in.LaunchDir)
	if err != nil {
		return "", err
	}
	if m.Help != "" {
		return m.Help, nil
	}
	return fmt.Sprintf("jp %s: %s", strings.Join(b.Command(), " "), m.Description), nil
}

// describe runs the plugin with describe instead of init and returns its
// answer. The binary has been admitted.
func (h *PluginHost) describe(ctx context.Context, in PluginRunInput, dir string) (plugin.Manifest, error) {
	name := in.Binary.Name()
	conn, err := h.spawner.Spawn(ctx, h.spec(in, dir))
	if err != nil {
		return plugin.Manifest{}, &UserError{Msg: err.Error(), Err: err}
	}
	defer conn.Close()
	fail := func(why string) error {
		msg := fmt.Sprintf("plugin %s (%s) did not describe itself: %s", name, in.Binary.Path, why)
		return &UserError{Msg: msg}
	}
	line, err := plugin.Encode(plugin.DescribeRequest{})
	if err != nil {
		return plugin.Manifest{}, err
	}
	if err := conn.Send(ctx, line); err != nil {
		return plugin.Manifest{}, fail(err.Error())
	}
	rctx, cancel := context.WithTimeout(ctx, in.ReadyTimeout)
	defer cancel()
	for {
		line, err := conn.Recv(rctx)
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return plugin.Manifest{}, fail(fmt.Sprintf("no answer within %s", in.ReadyTimeout))
		case err != nil:
			return plugin.Manifest{}, fail(err.Error())
		}
		hdr, err := plugin.DecodeHeader(line)
		if err != nil || hdr.Type != plugin.TypeDescribe {
			continue // a log line, or noise
		}
		d, err := plugin.Decode[plugin.Description](line)
		if err != nil {
			return plugin.Manifest{}, fail(err.Error())
		}
		_ = conn.CloseStdin()
		return d.Manifest, nil
	}
}
