package app_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/sysclock"
	"github.com/jpcli/jp/adapters/terminal"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// gapProvider queues a reply during the first call (pressing Ctrl-C) and
// records when the first stream ended and the second began.
type gapProvider struct {
	*mocks.ProviderMock
	asked     chan struct{}
	firstDone time.Time
	gap       time.Duration
}

func newGapProvider(router *terminal.Interrupts) *gapProvider {
	p := &gapProvider{asked: make(chan struct{})}
	p.ProviderMock = &mocks.ProviderMock{StreamFunc: func(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
		if len(p.StreamCalls()) == 2 {
			p.gap = time.Since(p.firstDone)
			return emit(llm.Event{Kind: llm.EventTextDelta, Text: "ok"})
		}
		for i := 0; i < 20; i++ {
			if i == 2 {
				router.Press()
				<-p.asked // the menu is up before the stream goes on
			}
			if err := emit(llm.Event{Kind: llm.EventTextDelta, Text: "w "}); err != nil {
				return err
			}
		}
		p.firstDone = time.Now()
		return nil
	}}
	return p
}

// BenchmarkQueuedTurnLatency measures, on the real file store, the time
// from the end of a turn's stream to the queued turn's provider request
// with interrupt.loop_countdown.duration_secs = 0 (target: median under
// 3 ms on a quiet disk; the path holds one fsync, turn_writes.go). It
// reports the median of the runs as median-ms, and the fsyncs the store
// made per turn (each run is two turns, with the conversation's creation)
// as fsyncs/turn.
func BenchmarkQueuedTurnLatency(b *testing.B) {
	dir := b.TempDir()
	root := filepath.Join(dir, "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	store, err := fsstore.New(filepath.Join(dir, "data"), sysclock.New())
	if err != nil {
		b.Fatal(err)
	}
	ws := app.NewWorkspaces(store, store)
	if _, err := ws.Init(context.Background(), root); err != nil {
		b.Fatal(err)
	}
	cfg := config.Default()
	cfg.Interrupt.LoopCountdown.DurationSecs = 0
	// No generated title: its request (in the background, after the
	// first turn) would be one more provider call, not the dispatch.
	cfg.Conversation.Title.Model = config.TitleModelNone
	router := terminal.NewInterrupts(terminal.InterruptOptions{Exit: func(int) {}, Restore: func() {}})
	var prov *gapProvider
	q := app.NewQuery(ws, app.QueryDeps{
		Store: store, Drafts: store, Locker: store,
		Config: &mocks.ConfigLoaderMock{LoadFunc: func(context.Context, ports.ConfigSource) (config.Resolved, error) {
			return config.Resolved{Config: cfg}, nil
		}},
		Providers: &mocks.ProviderFactoryMock{
			ProviderFunc: func(context.Context, config.Config, llm.ModelID) (ports.Provider, error) { return prov, nil },
			HasKeyFunc:   func(config.Config, string) bool { return false },
		},
		Tools:   echoTools(),
		Printer: newPrinter(),
		Prompter: &mocks.PrompterMock{
			InteractiveFunc: func() bool { return true },
			AskFunc: func(context.Context, ports.Question) (ports.Answer, error) {
				close(prov.asked)
				return ports.Answer{Text: "q"}, nil
			},
			ComposeFunc: func(context.Context, ports.ComposeRequest) (string, error) { return "and then?", nil },
		},
		Clock: sysclock.New(), IDs: sysclock.IDs{},
		Interrupts: router, Timers: sysclock.New(),
	})
	gaps := make([]time.Duration, 0, b.N)
	syncs0 := store.Syncs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		prov = newGapProvider(router)
		if _, err := q.Run(context.Background(), app.QueryInput{LaunchDir: root, Message: "go", HasMessage: true, New: true}); err != nil {
			b.Fatal(err)
		}
		if len(prov.StreamCalls()) != 2 {
			b.Fatalf("queued turn did not run (%d calls)", len(prov.StreamCalls()))
		}
		gaps = append(gaps, prov.gap)
	}
	b.StopTimer()
	slices.Sort(gaps)
	b.ReportMetric(float64(gaps[len(gaps)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(store.Syncs()-syncs0)/float64(2*b.N), "fsyncs/turn")
}
