package app

import (
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/compact"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

// autoSpec fires only when enabled, over the threshold of a known window
// and past min_turns, and its range rolls: after keep_first and after the
// last compaction, up to keep_last turns before the end.
func TestAutoSpecRollingRange(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	view := func(turns int, overlays ...conversation.Compaction) compact.View {
		v := compact.View{Overlays: overlays}
		for i := range turns {
			v.Starts = append(v.Starts, start.Add(time.Duration(i)*time.Minute))
		}
		return v
	}
	on := config.CompactionAuto{Enabled: true, MinTurns: 5}
	over := llm.ContextMeter{Tokens: 160_000, Window: 200_000}
	under := llm.ContextMeter{Tokens: 150_000, Window: 200_000}
	now := start.Add(time.Hour)
	rangeOf := func(a config.CompactionAuto, m llm.ContextMeter, v compact.View) (compact.Range, bool) {
		t.Helper()
		spec, due, err := autoSpec(a, m, v, now)
		if err != nil {
			t.Fatal(err)
		}
		if !due {
			return compact.Range{}, false
		}
		plans := compact.Plan(v, compact.Spec{Rules: spec.Rules, From: spec.From}, now)
		if len(plans) != 1 {
			t.Fatalf("%d overlays planned, want 1", len(plans))
		}
		return plans[0].Range, true
	}
	// D50's example: after turn 12 (13 turns), keep first 1 and last 3.
	if r, ok := rangeOf(on, over, view(13)); !ok || r != (compact.Range{From: 1, To: 9}) {
		t.Errorf("first firing: %+v %v, want turns 1..9", r, ok)
	}
	// After turn 20, with that compaction in place: the next band only.
	if r, ok := rangeOf(on, over, view(21, conversation.Compaction{FromTurn: 1, ToTurn: 9})); !ok || r != (compact.Range{From: 10, To: 17}) {
		t.Errorf("second firing: %+v %v, want turns 10..17", r, ok)
	}
	// The default rule strips reasoning and tool calls.
	spec, _, _ := autoSpec(on, over, view(13), now)
	if r := spec.Rules[0]; !r.Reasoning || r.Tools == nil || r.Summary != nil {
		t.Errorf("default rule %+v", r)
	}
	for name, c := range map[string]struct {
		a config.CompactionAuto
		m llm.ContextMeter
		v compact.View
	}{
		"disabled":              {config.CompactionAuto{MinTurns: 5}, over, view(13)},
		"under the threshold":   {on, under, view(13)},
		"window unknown":        {on, llm.ContextMeter{Tokens: 1 << 30}, view(13)},
		"min_turns":             {on, over, view(5)},
		"nothing left":          {on, over, view(13, conversation.Compaction{FromTurn: 1, ToTurn: 9})},
		"protected tail only":   {on, over, view(6, conversation.Compaction{FromTurn: 1, ToTurn: 2})},
		"custom ratio not over": {config.CompactionAuto{Enabled: true, MinTurns: 5, TriggerRatio: config.Float(0.9)}, over, view(13)},
	} {
		if r, ok := rangeOf(c.a, c.m, c.v); ok {
			t.Errorf("%s: fired over %+v", name, r)
		}
	}
	// A configured rule, and a bad one named by its key.
	a := on
	a.Rule = &config.CompactionRule{KeepFirst: "2", KeepLast: "1", Reasoning: "strip"}
	if r, ok := rangeOf(a, over, view(13)); !ok || r != (compact.Range{From: 2, To: 11}) {
		t.Errorf("configured rule: %+v %v, want turns 2..11", r, ok)
	}
	a.Rule = &config.CompactionRule{KeepLast: "soon", Reasoning: "strip"}
	if _, _, err := autoSpec(a, over, view(13), now); err == nil || !strings.Contains(err.Error(), "conversation.compaction.auto.rule.keep_last") {
		t.Errorf("bad rule: %v", err)
	}
	a = on
	a.TriggerRatio = config.Float(1.5)
	if _, _, err := autoSpec(a, under, view(13), now); err == nil || !strings.Contains(err.Error(), "trigger_ratio") {
		t.Errorf("ratio over 1: %v", err)
	}
}
