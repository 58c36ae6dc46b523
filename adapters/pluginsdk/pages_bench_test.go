package pluginsdk_test

import (
	"testing"
)

// BenchmarkReadEvents100k reads a conversation of about 100,000 events
// (15 MB of events.json on fsstore) from a plugin through the real host,
// side by side: whole (read_events without offset or limit, one 17 MB
// line: what the web watch asked for every 750 ms before it paged), the
// first page (offset 0), every page (EventPages: each page scans the
// file from its start, decoding what it skips), and a follower's poll
// with nothing new (offset at the end: what the web watch asks now).
// Metric: events/op sent.
func BenchmarkReadEvents100k(b *testing.B) {
	c, _, stop := startHostWith(b, hostSetup{conversations: 1, fs: true, events: 100_000, pad: 60})
	defer stop()
	ctx := b.Context()
	convs, err := c.ListConversations(ctx)
	if err != nil || len(convs) != 1 {
		b.Fatalf("list = %v, %v", convs, err)
	}
	conv := convs[0].ID
	first, err := c.ReadEventsPage(ctx, conv, 0, 0)
	if err != nil || !first.More {
		b.Fatalf("first page: %d events, more %v, %v", len(first.Data), first.More, err)
	}
	b.Run("whole", func(b *testing.B) {
		n := 0
		for b.Loop() {
			evs, err := c.ReadEvents(ctx, conv)
			if err != nil {
				b.Fatal(err)
			}
			n = len(evs.Data)
		}
		b.ReportMetric(float64(n), "events/op")
	})
	b.Run("first-page", func(b *testing.B) {
		n := 0
		for b.Loop() {
			p, err := c.ReadEventsPage(ctx, conv, 0, 0)
			if err != nil {
				b.Fatal(err)
			}
			n = len(p.Data)
		}
		b.ReportMetric(float64(n), "events/op")
	})
	b.Run("all-pages", func(b *testing.B) {
		n := 0
		for b.Loop() {
			n = 0
			for p, err := range c.EventPages(ctx, conv, 0) {
				if err != nil {
					b.Fatal(err)
				}
				n += len(p.Data)
			}
		}
		b.ReportMetric(float64(n), "events/op")
	})
	b.Run("poll-nothing-new", func(b *testing.B) {
		end := 0
		for p, err := range c.EventPages(ctx, conv, 0) {
			if err != nil {
				b.Fatal(err)
			}
			end = *p.NextOffset
		}
		n := 0
		for b.Loop() {
			p, err := c.ReadEventsPage(ctx, conv, end, 0)
			if err != nil || *p.NextOffset != end {
				b.Fatalf("poll: %v, next %d", err, *p.NextOffset)
			}
			n = len(p.Data)
		}
		b.ReportMetric(float64(n), "events/op")
	})
}
