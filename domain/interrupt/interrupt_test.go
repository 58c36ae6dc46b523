package interrupt

import (
	"testing"
	"time"
)

func TestMenusMatchTheSeed(t *testing.T) {
	for _, tt := range []struct {
		menu Menu
		line string
	}{
		{StreamingMenu, "[c] Continue  [r] Reply (stop & respond)  [q] Queue reply (finish, then respond)  [s] Stop (save & exit)  [a] Abort (discard & exit)"},
		{ToolCallMenu, "[c] Continue  [r] Stop & respond  [q] Queue reply (finish, then respond)  [s] Stop (cancel & exit)  [t] Restart"},
		{CountdownMenu, "[n] Send now  [e] Edit draft  [k] Keep draft (don't send)  [d] Discard draft"},
	} {
		if got := tt.menu.Line(); got != tt.line {
			t.Errorf("%s menu:\n got %s\nwant %s", tt.menu.Kind, got, tt.line)
		}
	}
	if a, ok := StreamingMenu.Pick("q"); !ok || a != ActionQueueReply {
		t.Fatal("streaming q")
	}
	if a, ok := ToolCallMenu.Pick("q"); !ok || a != ActionQueueReply {
		t.Fatal("queue_reply means the same in both menus")
	}
	if a, _ := ToolCallMenu.Pick("r"); a != ActionRespond {
		t.Fatal("tool call r is respond")
	}
	if _, ok := CountdownMenu.Pick("s"); ok {
		t.Fatal("s and c are deliberately unused on the countdown menu")
	}
	if _, ok := CountdownMenu.Pick("c"); ok {
		t.Fatal("s and c are deliberately unused on the countdown menu")
	}
}

func TestParseActions(t *testing.T) {
	for _, tt := range []struct {
		parse func(string) (Action, bool)
		in    string
		want  Action
		ok    bool
	}{
		{ParseStreamingAction, "prompt", ActionUnknown, true},
		{ParseStreamingAction, "queue_reply", ActionQueueReply, true},
		{ParseStreamingAction, "respond", ActionUnknown, false},
		{ParseToolCallAction, "queue_reply", ActionQueueReply, true},
		{ParseToolCallAction, "restart", ActionRestart, true},
		{ParseToolCallAction, "abort", ActionUnknown, false},
		{ParseCountdownAction, "send", ActionSendNow, true},
		{ParseCountdownAction, "edit", ActionEditDraft, true},
		{ParseCountdownAction, "stop", ActionUnknown, false},
	} {
		got, ok := tt.parse(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parse(%q) = %v %v", tt.in, got, ok)
		}
	}
}

func TestEscalationWithCooldown(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		at     []time.Duration // press times after t0
		levels []Level
	}{
		{"three quick presses", []time.Duration{0, 500 * time.Millisecond, time.Second}, []Level{LevelHandler, LevelShutdown, LevelExit}},
		{"cooldown resets", []time.Duration{0, 3 * time.Second, 3500 * time.Millisecond}, []Level{LevelHandler, LevelHandler, LevelShutdown}},
		{"exactly at the cooldown still counts", []time.Duration{0, 2 * time.Second}, []Level{LevelHandler, LevelShutdown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Escalation{Cooldown: 2 * time.Second}
			for i, d := range tt.at {
				if got := e.Press(t0.Add(d)); got != tt.levels[i] {
					t.Fatalf("press %d: %v, want %v", i, got, tt.levels[i])
				}
			}
		})
	}
	e := Escalation{Cooldown: 2 * time.Second}
	e.Press(t0)
	e.Reset()
	if e.Press(t0.Add(time.Millisecond)) != LevelHandler {
		t.Fatal("after a handled menu the count starts over")
	}
}

func TestCountdownLine(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{7 * time.Second, "⏳ Sending queued reply in 7s… (^C to review)"},
		{6500 * time.Millisecond, "⏳ Sending queued reply in 7s… (^C to review)"},
		{0, "⏳ Sending queued reply in 0s… (^C to review)"},
	} {
		if got := CountdownLine(tt.d); got != tt.want {
			t.Errorf("CountdownLine(%v) = %q", tt.d, got)
		}
	}
}

// TestCountdownRedrawCoversTheLongerLine: a redraw overwrites the whole
// previous line, so going from 10s to 9s leaves no stray character.
func TestCountdownRedrawCoversTheLongerLine(t *testing.T) {
	ten := CountdownLine(10 * time.Second)
	got := CountdownRedraw(9*time.Second, ten)
	if got != "\r"+CountdownLine(9*time.Second)+" " {
		t.Fatalf("redraw = %q", got)
	}
	if got := CountdownRedraw(10*time.Second, ""); got != "\r"+ten {
		t.Fatalf("first draw = %q", got)
	}
}
