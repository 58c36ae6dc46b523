package eventcodec

import (
	"encoding/json"

	"github.com/jpcli/jp/domain/conversation"
)

// Codec is ports.EventCodec: Marshal and Unmarshal for the use cases.
type Codec struct{}

// EncodeEvent is Marshal.
func (Codec) EncodeEvent(e conversation.Event) (json.RawMessage, error) { return Marshal(e) }

// DecodeEvent is Unmarshal.
func (Codec) DecodeEvent(b []byte) (conversation.Event, error) {
	var e conversation.Event
	err := Unmarshal(b, &e)
	return e, err
}

// UnmarshalShared is Unmarshal without the copy: the event's strings and
// Raw share b, which the caller leaves as it is.
func UnmarshalShared(b []byte, e *conversation.Event) error { return decode(e, b, false) }
