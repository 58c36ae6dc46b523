package web

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (d discardWriter) Header() http.Header       { return d.h }
func (discardWriter) Write(b []byte) (int, error) { return io.Discard.Write(b) }
func (discardWriter) WriteHeader(int)             {}

// BenchmarkWatchPoll100k is one poll of the web watch with nothing new on
// a conversation of 100,000 events, the server's side (jp's side is
// pluginsdk's BenchmarkReadEvents100k), side by side: paged (the watch
// now: read_events from the offset the page has, nothing to decode) and
// whole (the watch before: every event read and decoded each poll, to
// find none new).
func BenchmarkWatchPoll100k(b *testing.B) {
	base := storedEvents()
	evs := make([]conversation.Event, 0, 100_000)
	for i := 0; len(evs) < cap(evs); i++ {
		e := base[i%len(base)]
		e.ID = fmt.Sprintf("e%d", i)
		evs = append(evs, e)
	}
	f := fixture()
	f.events[watchConv] = plugin.Events{Conversation: watchConv, Data: asStored(evs)}
	s := New(f, nil, func(string) {})
	defer s.Close()
	w := discardWriter{h: http.Header{}}
	ref := workspace.Ref{ID: "a1b2c3d", Root: "/src/a"}
	b.Run("paged", func(b *testing.B) {
		wr := watchRequest{ref: ref, conv: watchConv, after: len(evs)}
		failing := false
		for b.Loop() {
			if more, err := s.watchStep(b.Context(), w, &wr, &failing); !more || err != nil || wr.after != len(evs) {
				b.Fatalf("poll: %v %v, after %d", more, err, wr.after)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			all, err := f.ReadEvents(b.Context(), ref, watchConv)
			if err != nil {
				b.Fatal(err)
			}
			decoded, err := decodeEvents(all.Data)
			if err != nil {
				b.Fatal(err)
			}
			if stored, _ := splitPartial(decoded); len(stored) != len(evs) {
				b.Fatalf("%d events", len(stored))
			}
		}
	})
}
