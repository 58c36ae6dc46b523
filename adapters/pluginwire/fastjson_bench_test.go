package pluginwire

import (
	"encoding/json"
	. "github.com/jpcli/jp/domain/plugin"
	"testing"
)

// BenchmarkReadConfigRoundTrip weighs the hand fast paths (appendJSON,
// fastHeader) on the round trip plugins make most: a read_config request
// encoded, its header and body decoded, the config answer encoded, its
// header and body decoded. "plain" does the same with encoding/json only.
func BenchmarkReadConfigRoundTrip(b *testing.B) {
	data := json.RawMessage(`{"assistant":{"model":{"id":"anthropic/claude-sonnet-4"}},"style":{"color":true}}`)
	encodePlain := func(m Message) []byte {
		body, err := json.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		return withType(m.MessageType(), body)
	}
	headerPlain := func(line []byte) Header {
		var h Header
		if err := json.Unmarshal(line, &h); err != nil {
			b.Fatal(err)
		}
		return h
	}
	run := func(b *testing.B, encode func(Message) []byte, header func([]byte) Header) {
		b.ReportAllocs()
		for b.Loop() {
			line := encode(ReadConfig{ID: "p-17", Path: "assistant.model.id"})
			h := header(line)
			req, err := Decode[ReadConfig](line)
			if err != nil || h.ID != "p-17" {
				b.Fatal(err)
			}
			answer := encode(Config{ID: h.ID, Path: req.Path, Data: data})
			if header(answer).Type != TypeConfig {
				b.Fatal("not a config answer")
			}
			var c Config
			if err := json.Unmarshal(answer, &c); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("fast", func(b *testing.B) {
		run(b, func(m Message) []byte {
			line, err := Encode(m)
			if err != nil {
				b.Fatal(err)
			}
			return line
		}, func(line []byte) Header {
			h, err := DecodeHeader(line)
			if err != nil {
				b.Fatal(err)
			}
			return h
		})
	})
	b.Run("plain", func(b *testing.B) { run(b, encodePlain, headerPlain) })
}
