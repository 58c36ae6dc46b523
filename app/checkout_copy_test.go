package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/adapters/sysclock"
	"github.com/jpcli/jp/adapters/terminal"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// When only the checkout copy cannot be updated at the turn's end, the
// turn is saved in the user-local copy: the run succeeds and says so in
// one line, instead of failing a turn a script would send again. The
// failure is injected while the answer streams: the checkout copy's
// metadata.json becomes a directory (which no rename can replace, even
// as root).
func TestCheckoutCopyFailureSavesTheTurn(t *testing.T) {
	dir := storetest.TempDir(t)
	root := filepath.Join(dir, "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	clock := storetest.NewClock(storetest.Start)
	store, err := fsstore.New(filepath.Join(dir, "data"), clock)
	if err != nil {
		t.Fatal(err)
	}
	ws := app.NewWorkspaces(store, store)
	if _, err := ws.Init(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Conversation.Title.Model = config.TitleModelNone
	prov := &mocks.ProviderMock{}
	prov.StreamFunc = func(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
		convs := filepath.Join(root, ".jp", "conversations")
		names, err := os.ReadDir(convs)
		if err != nil || len(names) != 1 {
			t.Errorf("checkout conversations = %v, %v", names, err)
			return err
		}
		meta := filepath.Join(convs, names[0].Name(), "metadata.json")
		if err := os.Remove(meta); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(meta, "blocker"), 0o755); err != nil {
			return err
		}
		return emit(llm.Event{Kind: llm.EventTextDelta, Text: "the answer"})
	}
	printer := newPrinter()
	q := app.NewQuery(ws, app.QueryDeps{
		Store: store, Drafts: store, Locker: store, Checkpoints: store,
		Config: &mocks.ConfigLoaderMock{LoadFunc: func(context.Context, ports.ConfigSource) (config.Resolved, error) {
			return config.Resolved{Config: cfg}, nil
		}},
		Providers: &mocks.ProviderFactoryMock{
			ProviderFunc: func(context.Context, config.Config, llm.ModelID) (ports.Provider, error) { return prov, nil },
			HasKeyFunc:   func(config.Config, string) bool { return false },
		},
		Tools:    echoTools(),
		Printer:  printer,
		Prompter: &mocks.PrompterMock{InteractiveFunc: func() bool { return false }},
		Clock:    clock, IDs: sysclock.IDs{},
		Interrupts: terminal.NewInterrupts(terminal.InterruptOptions{Exit: func(int) {}, Restore: func() {}}),
		Timers:     sysclock.New(),
	})
	res, err := q.Run(context.Background(), app.QueryInput{LaunchDir: root, Message: "go", HasMessage: true, New: true})
	if err != nil {
		t.Fatalf("Run = %v, want success with a warning", err)
	}
	chrome := printer.text(ports.ChannelChrome)
	if n := strings.Count(chrome, "turn saved; the checkout copy could not be updated: "); n != 1 {
		t.Fatalf("chrome = %q, want the warning once", chrome)
	}
	f, err := store.Find(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := store.Events(context.Background(), workspace.Location{ID: f.ID, Root: f.Root}, res.Conversation)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) < 2 || evs[len(evs)-1].Type != conversation.EventTypeTurnEnd || evs[len(evs)-2].Message != "the answer" {
		t.Fatalf("user-local events = %+v, want the whole turn", evs)
	}
}
