package pluginhost_test

import (
	"github.com/jpcli/jp/adapters/eventcodec"
	"github.com/jpcli/jp/adapters/pluginwire"

	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/jpcli/jp/adapters/history"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/llm/demo"
	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/adapters/pluginproc"
	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/adapters/tomlconfig"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/app/pluginhost"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/testkit"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// The app test binary doubles as a plugin: with JP_APP_TEST_PLUGIN set to
// a JSON list of steps it records what jp sends (into the file named by
// JP_APP_TEST_PLUGIN_OUT) and sends what the steps say, instead of
// running the tests.
const (
	pluginStepsEnv = "JP_APP_TEST_PLUGIN"
	pluginOutEnv   = "JP_APP_TEST_PLUGIN_OUT"
)

func init() {
	if steps := os.Getenv(pluginStepsEnv); steps != "" {
		os.Exit(runDriver(steps, os.Getenv(pluginOutEnv)))
	}
}

// step is one thing the test plugin does.
type step struct {
	Send      string `json:"send,omitempty"`       // write this line
	Read      int    `json:"read,omitempty"`       // read and record this many lines
	Until     string `json:"until,omitempty"`      // read and record lines up to one of this type (types|separated|by|bars: any of them)
	UntilText string `json:"until_text,omitempty"` // read and record lines up to one containing this
	Flood     int    `json:"flood,omitempty"`      // write this many print lines
	Long      int    `json:"long,omitempty"`       // write a line of this many bytes
	Exit      *int   `json:"exit,omitempty"`       // end the process with this status
	Block     bool   `json:"block,omitempty"`      // record lines until stdin ends
	Kill      bool   `json:"kill,omitempty"`       // SIGKILL itself
	SDK       string `json:"sdk,omitempty"`        // run an SDK scenario instead
	Times     int    `json:"times,omitempty"`      // with Send: write the line this many times
	Hang      bool   `json:"hang,omitempty"`       // never read or write again, never exit
}

func send(line string) step    { return step{Send: line} }
func read(n int) step          { return step{Read: n} }
func until(typ string) step    { return step{Until: typ} }
func untilText(s string) step  { return step{UntilText: s} }
func exitWith(code int) step   { return step{Exit: &code} }
func sdk(scenario string) step { return step{SDK: scenario} }

var ready = send(`{"type":"ready"}`)

func runDriver(stepsJSON, outPath string) int {
	var steps []step
	if err := json.Unmarshal([]byte(stepsJSON), &steps); err != nil {
		fmt.Fprintln(os.Stderr, "bad steps:", err)
		return 97
	}
	out, err := os.OpenFile(outPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return 96
	}
	defer out.Close()
	if len(steps) > 0 && steps[0].SDK != "" {
		return runSDKScenario(steps[0].SDK, out)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	w := bufio.NewWriter(os.Stdout)
	record := func() (string, bool) {
		line, err := in.ReadString('\n')
		if err != nil {
			return "", false
		}
		fmt.Fprint(out, line)
		return line, true
	}
	record() // init
	for _, s := range steps {
		switch {
		case s.Send != "":
			for range max(1, s.Times) {
				fmt.Fprintln(w, s.Send)
			}
		case s.Hang:
			w.Flush()
			hang()
		case s.Flood > 0:
			for i := range s.Flood {
				fmt.Fprintf(w, `{"type":"print","text":"line %d\n"}`+"\n", i)
			}
		case s.Long > 0:
			w.WriteString(strings.Repeat("x", s.Long) + "\n")
		case s.Exit != nil:
			w.Flush()
			return *s.Exit
		case s.Kill:
			w.Flush()
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
		w.Flush()
		switch {
		case s.Read > 0:
			for range s.Read {
				record()
			}
		case s.Until != "":
			for {
				line, ok := record()
				if !ok || slices.ContainsFunc(strings.Split(s.Until, "|"), func(t string) bool { return strings.Contains(line, `"type":"`+t+`"`) }) {
					break
				}
			}
		case s.UntilText != "":
			for {
				line, ok := record()
				if !ok || strings.Contains(line, s.UntilText) {
					break
				}
			}
		case s.Block:
			for {
				if _, ok := record(); !ok {
					return 0
				}
			}
		}
	}
	return 0
}

// runSDKScenario runs a plugin written with the SDK.
func runSDKScenario(name string, out *os.File) int {
	m := plugin.Manifest{Name: "t", Version: "1", ProtocolVersion: plugin.ProtocolVersion}
	return pluginsdk.Run(context.Background(), os.Stdin, os.Stdout, os.Stderr, m, func(ctx context.Context, c *pluginsdk.Client) error {
		switch name {
		case "concurrent":
			return concurrentRequests(ctx, c, out)
		case "prompt-until-shutdown":
			_, err := c.Confirm(ctx, "Proceed?", false)
			fmt.Fprintf(out, "prompt error: %v\n", err)
			return err
		}
		return fmt.Errorf("unknown scenario %s", name)
	})
}

// concurrentRequests sends many requests at once from many goroutines and
// records what each got.
func concurrentRequests(ctx context.Context, c *pluginsdk.Client, out *os.File) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if i%2 == 0 {
				var v json.RawMessage
				if v, err = c.ReadConfig(ctx, "plugins.shutdown_timeout_secs"); err == nil && string(v) != "5" {
					err = fmt.Errorf("read_config = %s", v)
				}
			} else {
				var cs []plugin.ConversationSummary
				if cs, err = c.ListConversations(ctx); err == nil && len(cs) != 3 {
					err = fmt.Errorf("list = %d conversations", len(cs))
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
		}()
	}
	wg.Wait()
	fmt.Fprintf(out, "errors: %v\n", errs)
	return nil
}

// host is a Host over memstore, the real config loader, and real
// plugin processes (this test binary).
type host struct {
	t        *testing.T
	store    *memstore.Store
	host     *pluginhost.Host
	loc      workspace.Location
	data     string
	catalog  *pluginproc.Catalog
	printer  *pluginPrinter
	prompter *mocks.PrompterMock
	log      *testkit.SyncBuffer
	out      string
	// script is providers.demo.script of delegated turns ("" = echo).
	script string
	// attacher reads delegated queries' attachments: each spec becomes a
	// text attachment "contents of SPEC".
	attacher *mocks.AttacherMock
	// protocol is the protocol_version of the test plugin's manifest
	// (0: 2).
	protocol int
	// scope is its workspace_scope ("": single).
	scope string
	// history is the session's message history.
	history *history.File
	// snaps are the file snapshots a rewind reads and restores (set its
	// funcs in the test).
	snaps *mocks.FileSnapshotsMock
}

// stepClock is a clock that moves one second per reading, from t.
func stepClock(t time.Time) *mocks.ClockMock {
	var mu sync.Mutex
	return &mocks.ClockMock{NowFunc: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}}
}

func newHost(t *testing.T) *host {
	t.Helper()
	return newHostWith(t, pluginproc.Spawner{})
}

// newHostWith is newHost starting plugins with spawner.
func newHostWith(t *testing.T, spawner ports.PluginSpawner) *host {
	return newHostWithCodec(t, spawner, pluginwire.Codec{})
}

// newHostWithCodec is newHostWith over another plugin wire codec.
func newHostWithCodec(t *testing.T, spawner ports.PluginSpawner, wire ports.PluginCodec) *host {
	t.Helper()
	clock := stepClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	store := memstore.New(clock)
	root := t.TempDir()
	f, err := store.Init(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	h := &host{
		t: t, store: store, loc: workspace.Location{ID: f.ID, Root: f.Root}, data: data,
		catalog: pluginproc.NewCatalog(data), printer: newPluginPrinter(), log: &testkit.SyncBuffer{},
		out: filepath.Join(t.TempDir(), "transcript"), history: history.New(data),
		attacher: &mocks.AttacherMock{
			AttachFunc: func(ctx context.Context, req ports.AttachRequest) ([]conversation.Attachment, error) {
				var out []conversation.Attachment
				for _, s := range req.Specs {
					out = append(out, conversation.Attachment{Source: s, MediaType: "text/plain", Content: "contents of " + s})
				}
				return out, nil
			},
		},
		prompter: &mocks.PrompterMock{
			InteractiveFunc: func() bool { return true },
			AskFunc: func(ctx context.Context, q ports.Question) (ports.Answer, error) {
				t.Errorf("unexpected question %+v", q)
				return ports.Answer{}, ports.ErrUnavailable
			},
		},
	}
	ws := app.NewWorkspaces(store, store)
	trust := &tomlconfig.TrustFile{Path: filepath.Join(data, "trust.json")}
	loader := tomlconfig.NewWithOptions(tomlconfig.Options{Trust: trust})
	h.snaps = &mocks.FileSnapshotsMock{}
	ids := counterIDs()
	// Delegated turns run the real engine on the demo model (echo, or the
	// script in h.script) with the echo tools.
	query := app.NewQuery(ws, app.QueryDeps{
		Store: store, Drafts: store, Locker: store, Config: loader,
		Providers: &mocks.ProviderFactoryMock{
			ProviderFunc: func(context.Context, config.Config, llm.ModelID) (ports.Provider, error) {
				return demo.New(demo.Options{ScriptPath: h.script})
			},
			HasKeyFunc: func(config.Config, string) bool { return false },
		},
		Tools: echoTools(), Printer: h.printer, Prompter: h.prompter, Clock: clock, IDs: ids,
		Interrupts: &mocks.InterruptsMock{}, Timers: &mocks.TimersMock{}, Attacher: h.attacher,
	})
	h.host = pluginhost.New(app.NewPlugins(h.catalog), ws, app.NewConfig(ws, loader, tomlconfig.NewEditor()), pluginhost.Deps{
		Registry: store, Loader: loader, Store: store, Drafts: store, Locker: store, Printer: h.printer,
		Prompter: h.prompter, Catalog: h.catalog, Spawner: spawner, Clock: clock, IDs: ids, Events: eventcodec.Codec{}, Wire: wire, Query: query,
		History: h.history, Rewind: app.NewRewind(store, store, h.snaps, clock, ids), Trust: app.NewTrust(ws, loader, trust),
	})
	return h
}

// conv creates a conversation and returns its ID.
func (h *host) conv(title string) conversation.ID {
	h.t.Helper()
	id, err := h.store.Create(h.t.Context(), h.loc, ports.NewConversation{Title: title})
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// input is the run of the test plugin with steps, admitted unattended.
func (h *host) input(steps ...step) pluginhost.RunInput {
	h.t.Helper()
	exe, err := os.Executable()
	if err != nil {
		h.t.Fatal(err)
	}
	b, _ := json.Marshal(steps)
	protocol := h.protocol
	if protocol == 0 {
		protocol = 2
	}
	return pluginhost.RunInput{
		Binary:    plugin.Binary{Path: exe, Manifest: &plugin.Manifest{Name: "t", Version: "1", ProtocolVersion: protocol, WorkspaceScope: h.scope}, ManifestFrom: "file"},
		Args:      []string{"--flag", "arg"},
		LaunchDir: h.loc.Root,
		Environ:   append(os.Environ(), pluginStepsEnv+"="+string(b), pluginOutEnv+"="+h.out, "GORACE=atexit_sleep_ms=0"),
		Overrides: []string{`plugins.command.t.run="unattended"`, `plugins.command.t.options={retention=3}`},
		Verbosity: 3,
		Log:       slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.Level(-8)})),
	}
}

// run runs the test plugin with steps.
func (h *host) run(steps ...step) error {
	h.t.Helper()
	return h.host.Run(h.t.Context(), h.input(steps...))
}

// transcript returns the lines the plugin received, init first.
func (h *host) transcript() []string {
	h.t.Helper()
	b, err := os.ReadFile(h.out)
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// answers returns the received messages after init, decoded.
func (h *host) answers() []map[string]any {
	h.t.Helper()
	var out []map[string]any
	for _, l := range h.transcript()[1:] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			h.t.Fatalf("jp sent a line that is not JSON: %q", l)
		}
		out = append(out, m)
	}
	return out
}

// pluginPrinter is the Printer mock, recording what was written (as
// "channel:text") and the number of writes at each Flush; onWrite, if
// set, sees each write.
type pluginPrinter struct {
	*mocks.PrinterMock
	mu     sync.Mutex
	writes []string
	// flushedAt holds len(writes) at each Flush.
	flushedAt []int
	onWrite   func(ch ports.Channel, text string)
}

func newPluginPrinter() *pluginPrinter {
	p := &pluginPrinter{}
	p.PrinterMock = &mocks.PrinterMock{
		WriteFunc: func(ch ports.Channel, text string) {
			p.mu.Lock()
			p.writes = append(p.writes, ch.String()+":"+text)
			hook := p.onWrite
			p.mu.Unlock()
			if hook != nil {
				hook(ch, text)
			}
		},
		EndBlockFunc: func(ports.Channel) {},
		UsageFunc:    func(ports.UsageReport) {},
		WaitFunc:     func(string) func() { return func() {} },
		FlushFunc: func() error {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.flushedAt = append(p.flushedAt, len(p.writes))
			return nil
		},
		SuspendFunc: func() func() { return func() {} },
	}
	return p
}

func (p *pluginPrinter) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.writes...)
}

// echoTools is a tool source with one tool, fs_read, whose result names
// its arguments.
func echoTools() *mocks.ToolSourceMock {
	return &mocks.ToolSourceMock{
		OpenFunc: func(context.Context, config.Config, string) (ports.ToolServer, func(), error) {
			return &mocks.ToolServerMock{
				ToolsFunc: func(context.Context) ([]llm.Tool, error) {
					return []llm.Tool{{Name: "fs_read", Parameters: json.RawMessage(`{"type":"object"}`)}}, nil
				},
				CallFunc: func(_ context.Context, _ string, args json.RawMessage) (ports.ToolResult, error) {
					return ports.ToolResult{Content: "contents of " + string(args)}, nil
				},
			}, func() {}, nil
		},
	}
}

// counterIDs gives ev1, ev2, ... in call order.
func counterIDs() *mocks.IDGeneratorMock {
	var n atomic.Int64
	return &mocks.IDGeneratorMock{NewIDFunc: func() string { return fmt.Sprintf("ev%d", n.Add(1)) }}
}

// hang blocks forever, as a hung plugin does. A bare select{} is not
// enough: with no other goroutine the runtime reports a deadlock and
// exits with status 2; waiting for a signal keeps the signal goroutine.
func hang() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR2)
	for range c {
	}
}
