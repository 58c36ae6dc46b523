package conversation

import (
	"encoding/json"
	"time"
)

// expiresAtKey is the metadata.json key of a conversation's expiry, the
// Rust jp's (kept in Metadata.Extra).
const expiresAtKey = "expires_at"

// ExpiresAt returns when the conversation expires (jp q --tmp); ok is
// false when it does not (no expires_at, or null).
func (m Metadata) ExpiresAt() (t time.Time, ok bool) {
	var s string
	if json.Unmarshal(m.Extra[expiresAtKey], &s) != nil || s == "" {
		return time.Time{}, false
	}
	t, _, err := ParseTime(s)
	return t, err == nil
}

// SetExpiresAt records when the conversation expires, in the document's
// timestamp format (the Rust jp reads either); nil removes the expiry.
func (m *Metadata) SetExpiresAt(t *time.Time) {
	if t == nil {
		delete(m.Extra, expiresAtKey)
		return
	}
	b, _ := json.Marshal(FormatTime(*t, m.Format))
	if m.Extra == nil {
		m.Extra = map[string]json.RawMessage{}
	}
	m.Extra[expiresAtKey] = b
}

// Expired reports whether the conversation has an expiry at or before
// now: the Rust jp removes such a conversation once no terminal has it
// active.
func (m Metadata) Expired(now time.Time) bool {
	t, ok := m.ExpiresAt()
	return ok && !t.After(now)
}
