package mcp

import (
	"context"
	"slices"
	"testing"
	"time"
)

// reportMedian adds the median of ds as a metric: Go reports means, and
// process start-up has a long tail.
func reportMedian(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
}

// BenchmarkEverythingColdStart measures a lease that starts
// server-everything, up to its first tools/list answer.
func BenchmarkEverythingColdStart(b *testing.B) {
	ctx := context.Background()
	spec := everythingSpec(b, b.TempDir())
	p, err := NewPool(Options{Timers: newFakeTimers()})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = p.Shutdown(ctx) }()
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		ts, release, err := p.Lease(ctx, spec, limits)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ts.Tools(ctx); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
		b.StopTimer()
		release()
		if err := p.Stop(ctx, spec); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	reportMedian(b, ds)
}

// BenchmarkEverythingWarmLease measures the same through a warm lease:
// the instance runs already, and the lease's tools/list is one round trip.
func BenchmarkEverythingWarmLease(b *testing.B) {
	ctx := context.Background()
	spec := everythingSpec(b, b.TempDir())
	p, err := NewPool(Options{Timers: newFakeTimers()})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = p.Shutdown(ctx) }()
	_, release, err := p.Lease(ctx, spec, limits)
	if err != nil {
		b.Fatal(err)
	}
	release()
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		ts, release, err := p.Lease(ctx, spec, limits)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ts.Tools(ctx); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
		release()
	}
	reportMedian(b, ds)
}
