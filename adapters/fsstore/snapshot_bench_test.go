package fsstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/adapters/eventcodec"
	"github.com/jpcli/jp/domain/conversation"
)

// BenchmarkHistorySnapshot100k reads the events.json of a conversation of
// about 100,000 events (what a turn reads of its history) decoded as it
// was before there was a snapshot (plain), and through its history
// snapshot (snapshot: the bytes read and checked, the events rebuilt
// from the snapshot's records).
func BenchmarkHistorySnapshot100k(b *testing.B) {
	sc, id := bigConversation(b, 100000)
	p, err := sc.s.find(b.Context(), sc.loc, id, "read events")
	if err != nil {
		b.Fatal(err)
	}
	conv := p.siloConv
	for _, snap := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "snapshot"}[snap]
		b.Run(name, func(b *testing.B) {
			read := func() {
				f, err := os.Open(filepath.Join(conv, eventsFile))
				if err != nil {
					b.Fatal(err)
				}
				defer func() { _ = f.Close() }()
				n := 0
				each := func(conversation.Event) error { n++; return nil }
				if snap {
					err = jsonEvents(conv, f, each, false)
				} else {
					err = eventcodec.EachEventRead(f, each)
				}
				if err != nil || n < 100000 {
					b.Fatalf("read %d events, %v", n, err)
				}
			}
			read() // makes the snapshot
			if _, err := os.Stat(filepath.Join(conv, historySnapFile)); snap && err != nil {
				b.Fatalf("no snapshot: %v", err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				read()
			}
			if fi, err := os.Stat(filepath.Join(conv, historySnapFile)); err == nil && snap {
				b.ReportMetric(float64(fi.Size())/(1<<20), "snapshot-MB")
			}
			if fi, err := os.Stat(filepath.Join(conv, eventsFile)); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "events-MB")
			}
		})
	}
}
