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
	// The stored spelling of the expiry: adapters/eventcodec's TestExpiresAtStored.
}
