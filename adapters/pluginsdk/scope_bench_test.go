package pluginsdk_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/plugin"
)

// Benchmarks of workspace scope and addressing on the real host over pipes, with the store on
// disk (fsstore): what addressing a checkout costs per request (the
// registry is read on every request, so that a checkout deleted meanwhile
// is noticed), and how long a delegated turn takes from query to
// query_complete on the demo model.

// BenchmarkAddressedReadConfig: read_config from a multi-scope plugin
// (WorkspaceRef resolved on each request) against the same request from
// a single-scope plugin.
func BenchmarkAddressedReadConfig(b *testing.B) {
	for _, multi := range []bool{false, true} {
		name := "single"
		if multi {
			name = "multi"
		}
		b.Run(name, func(b *testing.B) {
			c, ref, stop := startHostWith(b, hostSetup{fs: true, multi: multi})
			defer stop()
			ctx := context.Background()
			at := c.At(ref)
			read := func() error {
				if multi {
					_, err := at.ReadConfig(ctx, "assistant.model")
					return err
				}
				_, err := c.ReadConfig(ctx, "assistant.model")
				return err
			}
			if err := read(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if err := read(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/request")
		})
	}
}

// BenchmarkAddressedListConversations100 lists 100 conversations of an
// addressed checkout on disk.
func BenchmarkAddressedListConversations100(b *testing.B) {
	c, ref, stop := startHostWith(b, hostSetup{fs: true, multi: true, conversations: 100})
	defer stop()
	ctx := context.Background()
	at := c.At(ref)
	b.ResetTimer()
	for range b.N {
		list, err := at.ListConversations(ctx)
		if err != nil || len(list) != 100 {
			b.Fatalf("list = %d, %v", len(list), err)
		}
	}
}

// BenchmarkDelegatedTurn runs one delegated turn per iteration on the
// demo model (echo, no tools) in an addressed checkout on disk: query ->
// lock, last-root check, turn_start ... turn_end persisted and pushed ->
// query_complete. Each turn appends to the same conversation, as a
// frontend's chat does.
func BenchmarkDelegatedTurn(b *testing.B) {
	c, ref, stop := startHostWith(b, hostSetup{fs: true, multi: true})
	defer stop()
	ctx := context.Background()
	at := c.At(ref)
	conv, err := at.CreateConversation(ctx, "bench", false)
	if err != nil {
		b.Fatal(err)
	}
	turn := func() {
		s, err := at.Query(ctx, plugin.Query{Conversation: conv, Content: "hello there, how are you"})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := s.Next(ctx); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		if r := s.Result(); r.Outcome != "completed" {
			b.Fatalf("outcome %s: %s", r.Outcome, r.Error)
		}
	}
	turn()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		turn()
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/turn")
}
