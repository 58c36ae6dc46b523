package fsstore

import (
	"encoding/json"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
)

// BenchmarkDecodeMetadata weighs the hand fast path against
// conversation.Metadata's own decoder (what decodeMetadata falls back to),
// on the document this store writes. The fast path stays while it pays.
func BenchmarkDecodeMetadata(b *testing.B) {
	doc := []byte("{\n  \"title\": \"Refactor the store\",\n  \"created_at\": \"2026-09-08T10:12:00Z\",\n  \"last_activated_at\": \"2026-09-08T10:12:00.123456789Z\",\n  \"pinned_at\": null,\n  \"archived_at\": null,\n  \"events_count\": 12\n}\n")
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m conversation.Metadata
			if !fastMetadata(doc, &m) {
				b.Fatal("fast path declined")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m conversation.Metadata
			if err := json.Unmarshal(doc, storedForm(&m)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
