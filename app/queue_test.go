package app_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// pressingProvider streams n deltas and presses Ctrl-C on the router
// after the third, as a user would during a long answer; later calls
// answer "You said: " and the last message.
func pressingProvider(f *fixture, n int) *mocks.ProviderMock {
	p := &mocks.ProviderMock{}
	p.StreamFunc = func(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
		if len(p.StreamCalls()) > 1 {
			last := req.Messages[len(req.Messages)-1].Text
			return emit(llm.Event{Kind: llm.EventTextDelta, Text: "You said: " + last})
		}
		for i := 0; i < n; i++ {
			if i == 3 {
				f.router.Press()
				for f.router.Depth() > 0 && len(f.prompter.AskCalls())+len(f.prompter.ComposeCalls()) == 0 {
					runtime.Gosched() // let the engine open the menu (or act) first
				}
			}
			if err := emit(llm.Event{Kind: llm.EventTextDelta, Text: "w "}); err != nil {
				return err
			}
		}
		return nil
	}
	return p
}

func queueFixture(t *testing.T, answers []string, composes []string) *fixture {
	t.Helper()
	f := newFixture(t)
	f.real = pressingProvider(f, 200)
	f.answers = answers
	f.prompter.ComposeFunc = func(ctx context.Context, req ports.ComposeRequest) (string, error) {
		if len(composes) == 0 {
			t.Fatalf("unexpected compose %+v", req)
		}
		c := composes[0]
		composes = composes[1:]
		return c, nil
	}
	return f
}

func TestCountdownTicksOnTheInjectedTimer(t *testing.T) {
	f := queueFixture(t, []string{"q"}, []string{"next please"})
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 3
	_, evs, err := f.run(t, app.QueryInput{Message: "long", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.ticks) != 3 {
		t.Fatalf("countdown ticks = %v, want three 1s ticks", f.ticks)
	}
	chrome := f.printer.text(ports.ChannelChrome)
	if !strings.Contains(chrome, "Sending queued reply in 3s") || !strings.Contains(chrome, "Sending queued reply in 1s") {
		t.Fatalf("chrome = %q", chrome)
	}
	var reqs []string
	for _, e := range evs {
		if e.Type == conversation.EventTypeChatRequest {
			reqs = append(reqs, e.Author+":"+e.Content)
		}
	}
	if strings.Join(reqs, "|") != "user:long|queued:next please" {
		t.Fatalf("requests = %v", reqs)
	}
	if f.router.Depth() != 0 {
		t.Fatalf("%d interrupt scopes left pushed", f.router.Depth())
	}
}

func TestZeroDurationSendsWithoutCountdown(t *testing.T) {
	f := queueFixture(t, []string{"q"}, []string{"right away"})
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 0
	_, evs, err := f.run(t, app.QueryInput{Message: "long", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.ticks) != 0 {
		t.Fatalf("ticks = %v", f.ticks)
	}
	if last := evs[len(evs)-2]; last.Message != "You said: right away" {
		t.Fatalf("queued turn answered %+v", last)
	}
}

func TestConfiguredStreamingActionSkipsTheMenu(t *testing.T) {
	f := queueFixture(t, nil, []string{"queued without a menu"})
	if err := f.cfg.Interrupt.Streaming.Action.SetConfigValue("queue_reply"); err != nil {
		t.Fatal(err)
	}
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 0
	_, evs, err := f.run(t, app.QueryInput{Message: "long", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.prompter.AskCalls()) != 0 {
		t.Fatal("interrupt.streaming.action = queue_reply must not show the menu")
	}
	if evs[len(evs)-2].Message != "You said: queued without a menu" {
		t.Fatalf("events = %+v", evs[len(evs)-2])
	}
}
