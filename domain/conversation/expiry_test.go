package conversation

import (
	"encoding/json"
	"testing"
	"time"
)

func TestExpiresAt(t *testing.T) {
	now := time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)
	var m Metadata
	if _, ok := m.ExpiresAt(); ok || m.Expired(now) {
		t.Fatal("no expiry: expired")
	}
	m.Extra = map[string]json.RawMessage{"expires_at": json.RawMessage("null")}
	if m.Expired(now) {
		t.Fatal("null expiry: expired")
	}
	at := now.Add(time.Hour)
	m.SetExpiresAt(&at)
	if m.Expired(now) || !m.Expired(now.Add(time.Hour)) {
		t.Fatal("an hour ahead")
	}
	if string(m.Extra["expires_at"]) != `"2026-03-05T13:00:00Z"` {
		t.Fatalf("jp form: %s", m.Extra["expires_at"])
	}
	r := Metadata{Format: FormatRust}
	r.SetExpiresAt(&now)
	if string(r.Extra["expires_at"]) != `"2026-03-05 12:00:00.000000"` || !r.Expired(now) {
		t.Fatalf("rust form: %s", r.Extra["expires_at"])
	}
}
