package app_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/llm/demo"
	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/adapters/terminal"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// BenchmarkEngineDeltas streams 100,000 text deltas from the demo provider
// through the turn engine and the terminal printer into a pipe, and
// reports deltas per second and allocations per delta (target: at least
// 1,000,000 deltas per second).
func BenchmarkEngineDeltas(b *testing.B) {
	const deltas = 100_000
	script := filepath.Join(b.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(`{"responses":[{"events":[{"text":"word ","repeat":100000}]}]}`), 0o644); err != nil {
		b.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	drained := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, r); close(drained) }()
	defer func() { _ = w.Close(); <-drained; _ = r.Close() }()

	printer := terminal.NewPrinter(terminal.PrinterOptions{Stdout: w, Stderr: io.Discard, Format: "text"})
	store := memstore.New(clockFrom(time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)))
	ws := app.NewWorkspaces(store, store)
	if _, err := ws.Init(context.Background(), "/proj"); err != nil {
		b.Fatal(err)
	}
	cfg := config.Default()
	q := app.NewQuery(ws, app.QueryDeps{
		Store: store, Drafts: store, Locker: store,
		Config: &mocks.ConfigLoaderMock{LoadFunc: func(context.Context, ports.ConfigSource) (config.Resolved, error) {
			return config.Resolved{Config: cfg}, nil
		}},
		Providers: &mocks.ProviderFactoryMock{
			ProviderFunc: func(context.Context, config.Config, llm.ModelID) (ports.Provider, error) {
				// A fresh provider per run: the script's first response each time.
				return demo.New(demo.Options{ScriptPath: script})
			},
			HasKeyFunc: func(config.Config, string) bool { return false },
		},
		Tools:      echoTools(),
		Printer:    printer,
		Prompter:   &mocks.PrompterMock{InteractiveFunc: func() bool { return false }},
		Clock:      clockFrom(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)),
		IDs:        counterIDs(),
		Interrupts: terminal.NewInterrupts(terminal.InterruptOptions{Exit: func(int) {}, Restore: func() {}}),
		Timers:     &mocks.TimersMock{AfterFunc: func(time.Duration) <-chan time.Time { return nil }},
	})
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := q.Run(context.Background(), app.QueryInput{LaunchDir: "/proj", Message: "go", HasMessage: true, New: true}); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(deltas*b.N)/elapsed.Seconds(), "deltas/s")
}
