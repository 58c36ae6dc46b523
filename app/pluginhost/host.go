package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// DefaultReadyTimeout is how long a plugin has to answer init with ready.
const DefaultReadyTimeout = 10 * time.Second

// Host is the use case that runs a command plugin (docs/plugins.md): admit
// it, spawn it with init, and serve its requests until it exits. The
// message loop is a router from message type to a small handler over
// ports (router.go, handlers.go, prompt.go).
type Host struct {
	plugins  *app.Plugins
	ws       *app.Workspaces
	cfg      *app.Config
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
	ids      ports.IDGenerator
	events   ports.EventCodec
	codec    ports.PluginCodec
	query    *app.Query
	history  ports.MessageHistory
	rewind   *app.Rewind
	trustUC  *app.Trust
}

// Deps are Host's ports.
type Deps struct {
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
	// IDs gives pushed events without an id one (nil: such a push is refused).
	IDs ports.IDGenerator
	// Events is the events' stored form, which read_events, push_events
	// and a delegated turn's events carry.
	Events ports.EventCodec
	// Wire is the plugin protocol's wire form: every line to and from a
	// plugin goes through it.
	Wire ports.PluginCodec
	// Query runs delegated turns.
	Query *app.Query
	// History is the session's message history (read_history,
	// add_history); nil refuses those requests.
	History ports.MessageHistory
	// Rewind and Trust serve a frontend's rewind and trust requests (nil
	// refuses them).
	Rewind *app.Rewind
	Trust  *app.Trust
}

// New builds the use case.
func New(plugins *app.Plugins, ws *app.Workspaces, cfg *app.Config, d Deps) *Host {
	return &Host{plugins: plugins, ws: ws, cfg: cfg, reg: d.Registry, loader: d.Loader, store: d.Store,
		drafts: d.Drafts, locker: d.Locker, printer: d.Printer, prompter: d.Prompter, catalog: d.Catalog,
		spawner: d.Spawner, clock: d.Clock, ids: d.IDs, events: d.Events, codec: d.Wire, query: d.Query, history: d.History,
		rewind: d.Rewind, trustUC: d.Trust}
}

// RunInput is one run of a routed plugin.
type RunInput struct {
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

// ExitError is a plugin's exit with a non-zero code: jp exits with
// Code, printing Reason when there is one.
type ExitError struct {
	Plugin string
	Code   int
	Reason string
}

func (e *ExitError) Error() string {
	if e.Reason != "" {
		return e.Reason
	}
	return fmt.Sprintf("plugin %s exited with code %d", e.Plugin, e.Code)
}

// Run admits and runs the plugin until it exits. It returns nil for exit
// code 0, a *ExitError for another code, an error wrapping
// ports.ErrInterrupted when the user stopped it (ctx ended, or Ctrl-C in
// a prompt: the plugin was sent shutdown), and a *UserError naming the
// plugin when it broke the protocol or died without exit.
//
// The dispatch runs in the fixed order: the declared scope (read
// from the manifest, nothing run) chooses the bootstrap; the binary is
// admitted once, under the configuration that bootstrap resolved; only
// then is it spawned with init.
func (h *Host) Run(ctx context.Context, in RunInput) error {
	in = withDefaults(in)
	if err := plugin.CheckRunnable(in.Binary); err != nil {
		return &app.UserError{Msg: err.Error(), Err: err}
	}
	b, err := h.bootstrap(ctx, in)
	if err != nil {
		return err
	}
	if b.note != "" {
		h.printer.Write(ports.ChannelChrome, b.note)
		h.printer.EndBlock(ports.ChannelChrome)
	}
	if err := h.admitAll(ctx, in, b); err != nil {
		return err
	}
	init, err := h.initMessage(ctx, in, b)
	if err != nil {
		return err
	}
	conn, err := h.spawner.Spawn(ctx, h.spec(in, b.dir))
	if err != nil {
		return &app.UserError{Msg: err.Error(), Err: err}
	}
	s := newSession(h, in, conn, b)
	s.writeTimeout = b.res.Config.Plugins.WriteTimeout()
	return s.run(ctx, init, b.res.Config.Plugins.ShutdownTimeout())
}

// boot is what the bootstrap of a plugin run resolved.
type boot struct {
	scope workspace.Scope
	// loc is the checkout of a single-scope plugin.
	loc workspace.Location
	// launch is the launch workspace ("" when there is none: a multi-scope
	// plugin launched outside any workspace).
	launch workspace.ID
	// res is the configuration admission reads and options come from.
	res config.Resolved
	// dir is the plugin's working directory: the checkout root (single),
	// the launch directory (multi).
	dir string
	// admitUnder, when set, are the configurations admission must all
	// pass (-w ID with several live checkouts); res.Config otherwise.
	admitUnder []admitLayer
	// note is the line saying which configuration admits the plugin,
	// when that is not the one -w named (recovery from a dead -w ID).
	note string
}

// bootstrap resolves what the plugin's declared scope needs. Single
// scope is the full workspace bootstrap (the checkout is registered, its
// silo created). Multi scope is configuration only: see configOnly.
func (h *Host) bootstrap(ctx context.Context, in RunInput) (boot, error) {
	scope := workspace.ScopeSingle
	if in.Binary.Manifest != nil {
		scope = in.Binary.Manifest.Scope()
	}
	if scope == workspace.ScopeMulti {
		return h.configOnly(ctx, in)
	}
	loc, err := h.ws.Open(ctx, in.Target, in.LaunchDir)
	if err != nil {
		return boot{}, err
	}
	res, err := h.loader.Load(ctx, ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: loc.Root, LaunchDir: in.LaunchDir,
		Env: in.Environ, Overrides: in.Overrides,
	})
	if err != nil {
		return boot{}, err
	}
	return boot{scope: scope, loc: loc, launch: loc.ID, res: res, dir: loc.Root}, nil
}

// configOnly is the configuration-only bootstrap level of a multi-scope
// plugin. Selection: -w when given, else the launch directory's
// workspace, else the user-global layers. It does not fail because no
// workspace exists, but malformed configuration and a -w naming nothing
// known stay errors, and a -w naming a workspace is never answered from
// another, more permissive configuration silently: an ID with several
// live checkouts is admitted under all of their configurations (the
// strictest wins, see admitAll), and an ID whose checkouts are all gone
// falls back to the launch directory's workspace, else the user-global
// layers, with a line saying so (recovery). It is read-only: no root
// registration, no silo creation, no import.
func (h *Host) configOnly(ctx context.Context, in RunInput) (boot, error) {
	b := boot{scope: workspace.ScopeMulti, dir: in.LaunchDir}
	if workspace.LooksLikeID(in.Target) {
		id, _ := workspace.ParseID(in.Target)
		if k, err := h.reg.Lookup(ctx, id); err == nil {
			return h.configOnlyID(ctx, in, b, k)
		} else if !errors.Is(err, ports.ErrNotFound) {
			return boot{}, err
		}
		// Not a known ID: Resolve tries it as a path and says what is wrong.
	}
	f, err := h.ws.Resolve(ctx, in.Target, in.LaunchDir)
	if err != nil {
		if !errors.Is(err, ports.ErrNoWorkspace) || (in.Target != "" && in.Target != app.TargetCWD) {
			return boot{}, err
		}
		f = ports.Found{} // outside any workspace: the user-global layers
	}
	b.launch = f.ID
	if b.res, err = h.loadAt(ctx, in, f.Root); err != nil {
		return boot{}, err
	}
	return b, nil
}

// configOnlyID is configOnly for -w naming a known workspace ID.
func (h *Host) configOnlyID(ctx context.Context, in RunInput, b boot, k workspace.Known) (boot, error) {
	live := k.LiveCheckouts()
	if len(live) == 0 {
		return h.recoverDead(ctx, in, b, k)
	}
	b.launch = k.ID
	for i, c := range live {
		res, err := h.loadAt(ctx, in, c.Path)
		if err != nil {
			return boot{}, err
		}
		if i == 0 {
			// options and timeouts come from the most recently used one.
			b.res = res
		}
		if len(live) > 1 {
			where := fmt.Sprintf("checkout %s of workspace %s (one of its %d live checkouts; the strictest configuration decides)", c.Path, k.ID, len(live))
			b.admitUnder = append(b.admitUnder, admitLayer{where: where, cfg: res.Config})
		}
	}
	return b, nil
}

// recoverDead is the recovery for -w naming a workspace whose checkouts
// are all gone: the launch directory's workspace, else the user-global
// layers, and one line saying which configuration admits the plugin.
func (h *Host) recoverDead(ctx context.Context, in RunInput, b boot, k workspace.Known) (boot, error) {
	recorded := make([]string, 0, len(k.Checkouts))
	for _, c := range k.Checkouts {
		recorded = append(recorded, c.Path)
	}
	dead := fmt.Sprintf("workspace %s has no live checkout (%s)", k.ID, (&workspace.DeadError{ID: k.ID, Recorded: recorded}).Gone())
	f, err := h.reg.Find(ctx, in.LaunchDir)
	switch {
	case err == nil:
		b.launch = f.ID
		b.note = fmt.Sprintf("%s: plugin %s is admitted under the configuration of the launch directory's workspace %s (%s)", dead, in.Binary.Name(), f.ID, f.Root)
	case errors.Is(err, ports.ErrNoWorkspace):
		f = ports.Found{}
		b.note = fmt.Sprintf("%s: plugin %s is admitted under the user-global configuration (%s is in no workspace)", dead, in.Binary.Name(), in.LaunchDir)
	default:
		return boot{}, err
	}
	if b.res, err = h.loadAt(ctx, in, f.Root); err != nil {
		return boot{}, err
	}
	return b, nil
}

// loadAt loads the invocation's configuration with root's workspace
// layers ("" for none: the user-global layers).
func (h *Host) loadAt(ctx context.Context, in RunInput, root string) (config.Resolved, error) {
	return h.loader.Load(ctx, ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: root, LaunchDir: in.LaunchDir,
		Env: in.Environ, Overrides: in.Overrides,
	})
}

func withDefaults(in RunInput) RunInput {
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
func (h *Host) spec(in RunInput, dir string) ports.PluginSpec {
	name := in.Binary.Name()
	log := in.Log
	return ports.PluginSpec{
		Name: name, Path: in.Binary.Path, Dir: dir, Env: in.Environ,
		Stderr: func(line string) { log.Debug("plugin stderr", "plugin", name, "line", line) },
	}
}

// initMessage builds init: the table. A multi-scope plugin gets
// no workspace, no user_workspace and no config: it addresses checkouts
// per request and reads their configuration with read_config.
func (h *Host) initMessage(ctx context.Context, in RunInput, b boot) (plugin.Init, error) {
	opts := []byte("{}")
	if o := b.res.Config.Plugin(in.Binary.Name()).Options; len(o) > 0 {
		enc, err := json.Marshal(o)
		if err != nil {
			return plugin.Init{}, fmt.Errorf("encode plugins.command.%s.options: %w", in.Binary.Name(), err)
		}
		opts = enc
	}
	init := plugin.Init{
		Version: declaredProtocol(in.Binary), Options: opts, Args: in.Args,
		LogLevel: logLevel(in.Verbosity), OutputFormat: in.OutputFormat,
		Paths: plugin.Paths{UserData: h.reg.DataDir(), UserConfig: in.UserConfigDir},
	}
	if b.scope == workspace.ScopeMulti {
		return init, nil
	}
	tree, err := json.Marshal(pluginTree(b.res, in.Binary.Name()))
	if err != nil {
		return plugin.Init{}, fmt.Errorf("encode configuration for plugin %s: %w", in.Binary.Name(), err)
	}
	if k, err := h.reg.Lookup(ctx, b.loc.ID); err == nil {
		init.Paths.UserWorkspace = k.Silo
	}
	init.Workspace = &plugin.WorkspaceInfo{Root: b.loc.Root, Storage: filepath.Join(b.loc.Root, ".jp"), ID: string(b.loc.ID)}
	init.Config = tree
	return init, nil
}

// pluginTree is the configuration tree the plugin name is shown: its
// secrets redacted (config.Redact) unless plugins.command.<name>.secrets
// is true.
func pluginTree(res config.Resolved, name string) map[string]any {
	if res.Config.Plugin(name).Secrets {
		return res.Tree
	}
	t, _ := config.Redact(res.Tree).(map[string]any)
	return t
}

// declaredProtocol is the protocol version init announces: the one the
// plugin's manifest (or recorded describe answer) declares, 1 when it
// says nothing. A binary with no manifest at all gets 1, the base
// protocol every plugin speaks; its ready may ask for more.
func declaredProtocol(b plugin.Binary) int {
	if b.Manifest == nil || b.Manifest.ProtocolVersion < 1 {
		return 1
	}
	return min(b.Manifest.ProtocolVersion, plugin.ProtocolVersion)
}

// logLevel maps the -v count to init's log_level: no -v is warn.
func logLevel(verbosity int) plugin.LogLevel {
	return plugin.LogLevel(min(max(verbosity, 0)+1, int(plugin.LogLevelTrace)))
}

// Help returns the help of jp <plugin> -h: the manifest's help when it
// has one (nothing runs), else the help of a describe answer, after
// admission.
func (h *Host) Help(ctx context.Context, in RunInput) (string, error) {
	in = withDefaults(in)
	b := in.Binary
	if b.Manifest != nil && b.Manifest.Help != "" && b.ManifestFrom == "file" {
		return b.Manifest.Help, nil
	}
	if err := plugin.CheckRunnable(b); err != nil {
		return "", &app.UserError{Msg: err.Error(), Err: err}
	}
	bt, err := h.bootstrap(ctx, in)
	if err != nil {
		return "", err
	}
	if err := h.admitAll(ctx, in, bt); err != nil {
		return "", err
	}
	m, err := h.describe(ctx, in, bt.dir)
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
func (h *Host) describe(ctx context.Context, in RunInput, dir string) (plugin.Manifest, error) {
	name := in.Binary.Name()
	conn, err := h.spawner.Spawn(ctx, h.spec(in, dir))
	if err != nil {
		return plugin.Manifest{}, &app.UserError{Msg: err.Error(), Err: err}
	}
	defer conn.Close()
	fail := func(why string) error {
		msg := fmt.Sprintf("plugin %s (%s) did not describe itself: %s", name, in.Binary.Path, why)
		return &app.UserError{Msg: msg}
	}
	line, err := h.codec.Encode(plugin.DescribeRequest{})
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
		hdr, err := h.codec.DecodeHeader(line)
		if err != nil || hdr.Type != plugin.TypeDescribe {
			continue // a log line, or noise
		}
		d, err := decode[plugin.Description](h.codec, line)
		if err != nil {
			return plugin.Manifest{}, fail(err.Error())
		}
		_ = conn.CloseStdin()
		return d.Manifest, nil
	}
}
