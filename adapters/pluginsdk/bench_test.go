package pluginsdk_test

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/llm/demo"
	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/adapters/pluginproc"
	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/adapters/pluginwire"
	"github.com/jpcli/jp/adapters/sysclock"
	"github.com/jpcli/jp/adapters/tomlconfig"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/app/pluginhost"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// discardPrinter prints nothing.
func discardPrinter() *mocks.PrinterMock {
	return &mocks.PrinterMock{
		WriteFunc: func(ports.Channel, string) {}, EndBlockFunc: func(ports.Channel) {},
		UsageFunc: func(ports.UsageReport) {}, WaitFunc: func(string) func() { return func() {} },
		FlushFunc: func() error { return nil }, SuspendFunc: func() func() { return func() {} },
	}
}

// These benchmarks measure protocol round trips from a plugin written with
// the SDK to the real host (pluginhost.Host: router, handlers, memstore)
// over OS pipes, against a raw echo of the same bytes over OS pipes in the
// same run. Both ends live in this process, so the ratio is the cost of
// the protocol machinery itself. Metrics: rt/s of each, and x-echo, the
// SDK's time per round trip over the echo's.

// pipeSpawner hands the plugin's ends of the pipes to the benchmark
// (on plugin) instead of starting a process.
func pipeSpawner(plugin chan<- [2]*os.File) *mocks.PluginSpawnerMock {
	return &mocks.PluginSpawnerMock{SpawnFunc: func(context.Context, ports.PluginSpec) (ports.PluginTransport, error) {
		inR, inW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		plugin <- [2]*os.File{inR, outW}
		return pluginproc.NewTransport(outR, inW), nil
	}}
}

// benchClock is a clock stopped at the start of 2026.
func benchClock() *mocks.ClockMock {
	return &mocks.ClockMock{NowFunc: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }}
}

// startHost runs the host with n conversations on memstore for a
// single-scope plugin, and returns the plugin's connection, and a func
// that ends the run.
func startHost(b *testing.B, conversations int) (*pluginsdk.Client, func()) {
	b.Helper()
	c, _, stop := startHostWith(b, hostSetup{conversations: conversations})
	return c, stop
}

// hostSetup says what startHostWith builds.
type hostSetup struct {
	conversations int
	// fs stores on disk (fsstore) instead of in memory.
	fs bool
	// multi declares workspace_scope multi: requests carry a WorkspaceRef.
	multi bool
	// events, when set, fills the first conversation with about this many
	// events (turns with two tool calls), each request padded to pad bytes.
	events, pad int
}

// benchStore is what the benchmarks need of a store.
type benchStore interface {
	ports.ConversationStore
	ports.DraftStore
	ports.WorkspaceRegistry
	ports.Locker
}

// startHostWith runs the host as hs says, with delegated turns on the
// demo model (echo) and no tools. It returns the plugin's connection, the
// checkout's reference, and a func that ends the run.
func startHostWith(b testing.TB, hs hostSetup) (*pluginsdk.Client, workspace.Ref, func()) {
	b.Helper()
	data := b.TempDir()
	var store benchStore = memstore.New(benchClock())
	if hs.fs {
		fs, err := fsstore.New(filepath.Join(data, "jp"), benchClock())
		if err != nil {
			b.Fatal(err)
		}
		store = fs
	}
	root := b.TempDir()
	f, err := store.Init(b.Context(), root)
	if err != nil {
		b.Fatal(err)
	}
	ws := app.NewWorkspaces(store, store)
	loader := tomlconfig.New()
	pluginEnds := make(chan [2]*os.File, 1)
	sp := pipeSpawner(pluginEnds)
	query := app.NewQuery(ws, app.QueryDeps{
		Store: store, Drafts: store, Locker: store, Config: loader,
		Providers: &mocks.ProviderFactoryMock{
			ProviderFunc: func(context.Context, config.Config, llm.ModelID) (ports.Provider, error) {
				return demo.New(demo.Options{})
			},
			HasKeyFunc: func(config.Config, string) bool { return false },
		},
		Tools: &mocks.ToolSourceMock{OpenFunc: func(context.Context, config.Config, string) (ports.ToolServer, func(), error) {
			return &mocks.ToolServerMock{ToolsFunc: func(context.Context) ([]llm.Tool, error) { return nil, nil }}, func() {}, nil
		}},
		Printer: discardPrinter(), Clock: benchClock(), IDs: sysclock.IDs{},
	})
	host := pluginhost.New(app.NewPlugins(pluginproc.NewCatalog(data)), ws, app.NewConfig(ws, loader, tomlconfig.NewEditor()), pluginhost.Deps{
		Registry: store, Loader: loader, Store: store, Drafts: store, Locker: store, Printer: discardPrinter(),
		Prompter: nil, Catalog: pluginproc.NewCatalog(data), Spawner: sp, Clock: benchClock(), IDs: sysclock.IDs{}, Events: eventcodec.Codec{}, Wire: pluginwire.Codec{}, Query: query,
	})
	if err := store.Register(b.Context(), f); err != nil {
		b.Fatal(err)
	}
	for i := range hs.conversations {
		id, err := store.Create(b.Context(), workspace.Location{ID: f.ID, Root: f.Root}, ports.NewConversation{Title: fmt.Sprintf("conversation %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 && hs.events > 0 {
			fillConversation(b, store, workspace.Location{ID: f.ID, Root: f.Root}, id, hs.events, hs.pad)
		}
	}
	bin := filepath.Join(data, "jp-bench")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	m := plugin.Manifest{Name: "bench", Version: "1", ProtocolVersion: 2}
	if hs.multi {
		m.WorkspaceScope = "multi"
	}
	done := make(chan error, 1)
	go func() {
		done <- host.Run(context.Background(), pluginhost.RunInput{
			Binary:    plugin.Binary{Path: bin, Manifest: &m, ManifestFrom: "file"},
			LaunchDir: root, Overrides: []string{`plugins.command.bench.run="unattended"`},
		})
	}()
	ends := <-pluginEnds
	c, err := pluginsdk.Start(context.Background(), ends[0], ends[1], manifest)
	if err != nil {
		b.Fatal(err)
	}
	return c, workspace.Ref{ID: string(f.ID), Root: f.Root}, func() {
		if err := c.Exit(0, ""); err != nil {
			b.Fatal(err)
		}
		c.Wait()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		ends[0].Close()
		ends[1].Close()
	}
}

// echo answers every line read from r with reply, until r ends.
func echo(r *os.File, w *os.File, reply []byte) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		if _, err := br.ReadSlice('\n'); err != nil {
			return
		}
		if _, err := w.Write(reply); err != nil {
			return
		}
	}
}

// rawRoundTrips sends req n times through an echo that answers reply, and
// returns the time taken.
func rawRoundTrips(b *testing.B, n int, req, reply []byte) time.Duration {
	b.Helper()
	reqR, reqW, _ := os.Pipe()
	repR, repW, _ := os.Pipe()
	go echo(reqR, repW, reply)
	br := bufio.NewReaderSize(repR, 64<<10)
	start := time.Now()
	for range n {
		if _, err := reqW.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	reqW.Close()
	repR.Close()
	reqR.Close()
	repW.Close()
	return elapsed
}

func line(m plugin.Message) []byte {
	b, err := pluginwire.Encode(m)
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

func report(b *testing.B, sdk, raw time.Duration) {
	n := float64(b.N)
	b.ReportMetric(n/sdk.Seconds(), "sdk-rt/s")
	b.ReportMetric(n/raw.Seconds(), "echo-rt/s")
	b.ReportMetric(sdk.Seconds()/raw.Seconds(), "x-echo")
}

func BenchmarkReadConfig(b *testing.B) {
	c, stop := startHost(b, 0)
	defer stop()
	ctx := context.Background()
	const path = "assistant.model"
	v, err := c.ReadConfig(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	req := line(plugin.ReadConfig{ID: "1a2b", Path: path})
	reply := line(plugin.Config{ID: "1a2b", Path: path, Data: v})
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := c.ReadConfig(ctx, path); err != nil {
			b.Fatal(err)
		}
	}
	sdk := time.Since(start)
	raw := rawRoundTrips(b, b.N, req, reply)
	report(b, sdk, raw)
}

func BenchmarkListConversations100(b *testing.B) {
	c, stop := startHost(b, 100)
	defer stop()
	ctx := context.Background()
	convs, err := c.ListConversations(ctx)
	if err != nil || len(convs) != 100 {
		b.Fatalf("list = %d, %v", len(convs), err)
	}
	req := line(plugin.ListConversations{ID: "1a2b"})
	reply := line(plugin.Conversations{ID: "1a2b", Data: convs})
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := c.ListConversations(ctx); err != nil {
			b.Fatal(err)
		}
	}
	sdk := time.Since(start)
	raw := rawRoundTrips(b, b.N, req, reply)
	report(b, sdk, raw)
}
