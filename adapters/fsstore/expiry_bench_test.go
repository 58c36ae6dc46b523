package fsstore

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// BenchmarkSweepNeeded1000: what the end of a jp q pays to learn that no
// conversation of 1,000 (in the silo and the checkout) expired, against
// the expiry record; BenchmarkList1000 is what it paid before (a full
// listing).
func BenchmarkSweepNeeded1000(b *testing.B) {
	ctx := b.Context()
	clock := storetest.NewClock(storetest.Start)
	s, err := New(filepath.Join(storetest.TempDir(b), "data"), clock, withoutFsync())
	if err != nil {
		b.Fatal(err)
	}
	f, err := s.Init(ctx, filepath.Join(storetest.TempDir(b), "repo"))
	if err != nil {
		b.Fatal(err)
	}
	loc := workspace.Location{ID: f.ID, Root: f.Root}
	for i := range 1000 {
		clock.Advance(1e9)
		if _, err := s.Create(ctx, loc, ports.NewConversation{Title: fmt.Sprintf("conversation %d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	flushAll()
	_, state := s.SweepNeeded(ctx, loc, clock.Now(), "")
	if err := s.RecordNextExpiry(ctx, loc, state, time.Time{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0, ops := cpuTime(), 0
	for b.Loop() {
		if needed, _ := s.SweepNeeded(ctx, loc, clock.Now(), ""); needed {
			b.Fatal("nothing changed: no sweep should be needed")
		}
		ops++
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(ops)/1e6, "cpu-ms/op")
}
