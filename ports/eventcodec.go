package ports

import (
	"encoding/json"

	"github.com/jpcli/jp/domain/conversation"
)

// EventCodec is the stored form of conversation events (jp's, and the Rust
// jp's on reading), for a use case that hands events to a plugin or takes
// them from one: the plugin protocol carries events as stored
// (docs/plugins.md). adapters/eventcodec implements it.
type EventCodec interface {
	// EncodeEvent is the event in jp's stored form: one JSON object, the
	// bytes stored when it was read from a file.
	EncodeEvent(e conversation.Event) (json.RawMessage, error)
	// DecodeEvent reads one event in either stored form.
	DecodeEvent(b []byte) (conversation.Event, error)
}
