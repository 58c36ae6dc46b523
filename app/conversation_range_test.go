package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/app"
)

// TestRange: the one parser of --from, --until and --inactive-since: each
// bound read as a Threshold, "" open, a bad one a usage line naming its
// flag.
func TestRange(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	clock := clockFrom(now)
	store := memstore.New(clock)
	c := app.NewConversations(store, store, clock)
	f, err := c.Range("2026-11-01", "", "3d")
	if err != nil {
		t.Fatal(err)
	}
	if !f.From.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) || !f.Until.IsZero() || f.InactiveSince.Sub(now.Add(-72*time.Hour)).Abs() > time.Second {
		t.Errorf("filter = %+v", f)
	}
	if f, err := c.Range("", "", ""); err != nil || f.Set() {
		t.Errorf("no flags: %+v, %v", f, err)
	}
	if _, err := c.Range("", "", "soon"); err == nil || !strings.HasPrefix(err.Error(), "--inactive-since: ") {
		t.Errorf("bad --inactive-since: %v", err)
	}
}
