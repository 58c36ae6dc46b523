package fsstore

import (
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/turn"
)

// BenchmarkTurnHistory100k is what a turn does with a conversation of
// about 100,000 events before it asks the model: under the lock, a scan
// (through the history snapshot) into a transcript, seeding the state
// the turn's first append checks against.
func BenchmarkTurnHistory100k(b *testing.B) {
	sc, id := bigConversation(b, 100000)
	release, err := sc.s.Lock(b.Context(), sc.loc, id, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = release() }()
	read := func() {
		t := turn.NewTranscript(100000)
		err := sc.s.ScanEvents(b.Context(), sc.loc, id, func(e conversation.Event) error { t.AddCopy(e); return nil })
		if err != nil || len(t.Messages()) == 0 {
			b.Fatalf("ScanEvents: %v", err)
		}
	}
	read() // makes the snapshot
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		read()
	}
}
