package app_test

import (
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// Automatic compaction runs between turns, never inside one: the turn's
// events come first, then the overlay, then the reply queued during the
// turn goes out, and the next boundary compacts the next band only.
func TestAutoCompactionBetweenTurnsThenQueuedReply(t *testing.T) {
	f := queueFixture(t, []string{"q"}, []string{"next please"})
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 0
	f.cfg.Assistant.Model.ContextWindows = map[string]int{"demo": 10} // every request is over 75% of it
	f.cfg.Conversation.Compaction.Auto = config.CompactionAuto{Enabled: true,
		Rule: &config.CompactionRule{KeepFirst: "0", KeepLast: "0", Reasoning: "strip"}}
	_, evs, err := f.run(t, app.QueryInput{Message: "long", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range evs {
		switch {
		case e.Compaction != nil:
			order = append(order, "compaction "+string(rune('0'+e.Compaction.FromTurn))+"-"+string(rune('0'+e.Compaction.ToTurn)))
		case e.Type == conversation.EventTypeChatRequest:
			order = append(order, e.Author+":"+e.Content)
		case e.Type == conversation.EventTypeTurnEnd:
			order = append(order, "end")
		}
	}
	if got := strings.Join(order, " | "); got != "user:long | end | compaction 0-0 | queued:next please | end | compaction 1-1" {
		t.Fatalf("events: %s", got)
	}
	chrome := f.printer.text(ports.ChannelChrome)
	if !strings.Contains(chrome, "Compacted turn 1 automatically (reasoning stripped; ctx ") || !strings.Contains(chrome, "Compacted turn 2 automatically") {
		t.Fatalf("chrome = %q", chrome)
	}
	// Off: nothing is compacted.
	f = queueFixture(t, []string{"q"}, []string{"next please"})
	f.cfg.Interrupt.LoopCountdown.DurationSecs = 0
	f.cfg.Assistant.Model.ContextWindows = map[string]int{"demo": 10}
	_, evs, err = f.run(t, app.QueryInput{Message: "long", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Compaction != nil {
			t.Fatalf("compacted with automatic compaction off: %+v", e)
		}
	}
}
