package demo

import (
	"context"
	"testing"

	"github.com/jpcli/jp/domain/llm"
)

// BenchmarkDemoStream plays one response of 100,000 text deltas (a
// repeated event, no sleep) into a no-op emit and reports deltas/sec.
func BenchmarkDemoStream(b *testing.B) {
	const deltas = 100_000
	p, err := New(Options{ScriptPath: writeScript(b, `{"responses": [{"events": [{"text": "word ", "repeat": 100000}]}]}`)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "go"}}}
	n := 0
	emit := func(e llm.Event) error {
		if e.Kind == llm.EventTextDelta {
			n++
		}
		return nil
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Stream(ctx, req, emit); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n != deltas*b.N {
		b.Fatalf("emitted %d deltas, want %d", n, deltas*b.N)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "deltas/sec")
}
