package conversation

import "time"

// ExpiresAt returns when the conversation expires (jp q --tmp); ok is
// false when it does not (no expires_at, or null).
func (m Metadata) ExpiresAt() (t time.Time, ok bool) {
	if m.Expires == nil {
		return time.Time{}, false
	}
	return *m.Expires, true
}

// SetExpiresAt records when the conversation expires (the store writes it
// in the document's timestamp format; the Rust jp reads either); nil
// removes the expiry.
func (m *Metadata) SetExpiresAt(t *time.Time) {
	delete(m.Extra, ExpiresAtKey)
	m.Expires = nil
	if t != nil {
		v := *t
		m.Expires = &v
	}
}

// Expired reports whether the conversation has an expiry at or before
// now: the Rust jp removes such a conversation once no terminal has it
// active.
func (m Metadata) Expired(now time.Time) bool {
	t, ok := m.ExpiresAt()
	return ok && !t.After(now)
}
