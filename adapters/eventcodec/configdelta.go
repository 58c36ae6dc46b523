package eventcodec

import (
	"fmt"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

// formatRustDeltaTime writes t as the Rust jp writes a config_delta's
// timestamp: "YYYY-MM-DD HH:MM:SS." then the nanoseconds without their
// trailing zeros, ".0" when there are none.
func formatRustDeltaTime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02 15:04:05") + ".0"
	}
	return strings.TrimRight(t.Format("2006-01-02 15:04:05.000000000"), "0")
}

// configDeltaJSON encodes a config_delta this process made, in format f.
func configDeltaJSON(e conversation.Event, f conversation.Format) ([]byte, error) {
	if len(e.Delta) == 0 {
		return nil, fmt.Errorf("encode event %q: config_delta without its delta", e.ID)
	}
	if f == conversation.FormatRust {
		return object(field{"type", conversation.KindConfigDelta}, field{"timestamp", formatRustDeltaTime(e.Timestamp)},
			field{"delta", e.Delta}, field{"event_id", e.ID})
	}
	return object(field{"type", conversation.KindConfigDelta}, field{"id", e.ID},
		field{"timestamp", e.Timestamp.UTC().Format(time.RFC3339Nano)}, field{"delta", e.Delta})
}
