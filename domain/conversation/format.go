package conversation

// Format is a stored form of conversations: jp's own, or the Rust jp's
// (docs/storage.md, "Coming from the Rust jp").
type Format int

// Stored forms.
const (
	// FormatJP: RFC 3339 timestamps, an "id" on every event, "call_id" and
	// "inquiry_id", plain tool arguments and results.
	FormatJP Format = iota
	// FormatRust: the Rust jp's form. Timestamps are "YYYY-MM-DD
	// HH:MM:SS.ffffff" (UTC); tool events use "id" as the call ID; the
	// string values of tool arguments, tool results and "metadata" are
	// base64; inquiry questions are objects. jp's own additions are fields
	// and event types the Rust reader passes over: "event_id", turn_end, and
	// on turn_start (where the Rust reader accepts no other field) the
	// metadata keys "event_id" and "root".
	FormatRust
)

// String names the format.
func (f Format) String() string {
	if f == FormatRust {
		return "rust"
	}
	return "jp"
}
