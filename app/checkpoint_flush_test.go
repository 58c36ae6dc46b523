package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// watchedStore is the file store noting, when the append that carries a
// turn's end with a queued turn's start begins, the last chat_response a
// reader sees: until that append the answer is on disk only as the
// checkpoint of the block in flight.
type watchedStore struct {
	*fsstore.Store
	mu   sync.Mutex
	seen []string
}

func (w *watchedStore) Append(ctx context.Context, loc workspace.Location, id conversation.ID, evs ...conversation.Event) error {
	for _, e := range evs {
		if e.Type == conversation.EventTypeChatRequest && e.Author == conversation.AuthorQueued {
			all, err := w.Events(ctx, loc, id)
			if err != nil {
				return err
			}
			answer := ""
			for _, e := range all {
				if e.Type == conversation.EventTypeChatResponse {
					answer = e.Message
				}
			}
			w.mu.Lock()
			w.seen = append(w.seen, answer)
			w.mu.Unlock()
		}
	}
	return w.Store.Append(ctx, loc, id, evs...)
}

// The end of a streamed answer is in its checkpoint when the stream ends:
// with a queued reply sent at once, the answer's event is appended only
// with the queued turn's start, and a kill before that must not lose the
// pieces that arrived since the last checkpoint write. The clock stands
// still, so no piece after the first is written on the clock.
func TestStreamEndFlushesTheBlockInFlight(t *testing.T) {
	dir := storetest.TempDir(t)
	root := filepath.Join(dir, "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	clock := storetest.NewClock(storetest.Start)
	fs, err := fsstore.New(filepath.Join(dir, "data"), clock)
	if err != nil {
		t.Fatal(err)
	}
	store := &watchedStore{Store: fs}
	ws := app.NewWorkspaces(store, store)
	if _, err := ws.Init(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Interrupt.LoopCountdown.DurationSecs = 0
	cfg.Conversation.Title.Model = config.TitleModelNone
	router := terminal.NewInterrupts(terminal.InterruptOptions{Exit: func(int) {}, Restore: func() {}})
	asked := make(chan struct{})
	prov := &mocks.ProviderMock{}
	prov.StreamFunc = func(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
		if len(prov.StreamCalls()) == 2 {
			return emit(llm.Event{Kind: llm.EventTextDelta, Text: "ok"})
		}
		for i := range 31 {
			if i == 2 {
				router.Press()
				<-asked // the reply is queued before the stream goes on
			}
			if err := emit(llm.Event{Kind: llm.EventTextDelta, Text: "p" + string(rune('a'+i%26)) + " "}); err != nil {
				return err
			}
		}
		return nil
	}
	q := app.NewQuery(ws, app.QueryDeps{
		Store: store, Drafts: store, Locker: store, Checkpoints: store,
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
				close(asked)
				return ports.Answer{Text: "q"}, nil
			},
			ComposeFunc: func(context.Context, ports.ComposeRequest) (string, error) { return "and then?", nil },
		},
		Clock: clock, IDs: sysclock.IDs{},
		Interrupts: router, Timers: sysclock.New(),
	})
	if _, err := q.Run(context.Background(), app.QueryInput{LaunchDir: root, Message: "go", HasMessage: true, New: true}); err != nil {
		t.Fatal(err)
	}
	if n := len(prov.StreamCalls()); n != 2 {
		t.Fatalf("%d provider calls, want the queued turn's too", n)
	}
	var want strings.Builder
	for i := range 31 {
		want.WriteString("p" + string(rune('a'+i%26)) + " ")
	}
	if len(store.seen) != 1 || store.seen[0] != want.String() {
		t.Fatalf("before the queued turn's append readers saw %q, want the whole answer %q", store.seen, want.String())
	}
}
