package app_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// scopeRecorder is the Interrupts mock with no Ctrl-C and no shutdown,
// whose pushed scopes (InterruptScope mocks) it keeps in push order.
type scopeRecorder struct {
	*mocks.InterruptsMock
	mu     sync.Mutex
	kinds  []string
	scopes []*mocks.InterruptScopeMock
}

func newScopeRecorder() *scopeRecorder {
	r := &scopeRecorder{}
	r.InterruptsMock = &mocks.InterruptsMock{
		PushFunc: func(kind string) ports.InterruptScope {
			s := &mocks.InterruptScopeMock{CFunc: func() <-chan struct{} { return nil }, PopFunc: func() {}}
			r.mu.Lock()
			r.kinds, r.scopes = append(r.kinds, kind), append(r.scopes, s)
			r.mu.Unlock()
			return s
		},
		EscalateFunc:    func() {},
		HandledFunc:     func() {},
		ShutdownFunc:    func() <-chan struct{} { return nil },
		ProgressFunc:    func(ports.Progress) {},
		SetCooldownFunc: func(time.Duration) {},
		CountdownFunc:   func() bool { return false },
	}
	return r
}

// A turn pushes the turn scope, a streaming scope per provider call and
// a tool_call scope while tools run, and pops every one it pushed (once
// is enough: Pop is idempotent), so no stale scope takes the next
// Ctrl-C.
func TestTurnPopsEveryInterruptScopeItPushes(t *testing.T) {
	r := newScopeRecorder()
	f := newFixtureWith(t, func(d *app.QueryDeps) { d.Interrupts = r },
		resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("done")}})
	f.cfg.Conversation.Tools.Named["fs_read"] = config.Tool{Run: config.RunPolicyUnattended}
	if _, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true}); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if want := []string{"turn", "streaming", "tool_call", "streaming"}; !slices.Equal(r.kinds, want) {
		t.Errorf("pushed %q, want %q", r.kinds, want)
	}
	for i, s := range r.scopes {
		if len(s.PopCalls()) == 0 {
			t.Errorf("scope %d (%s) was never popped", i, r.kinds[i])
		}
	}
	if n := len(r.SetCooldownCalls()); n != 1 {
		t.Errorf("cooldown set %d times, want once from the configuration", n)
	}
}
