package prune

import (
	"testing"
	"time"

	"github.com/jpcli/jp/domain/plugin"
)

func TestStale(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	at := func(d time.Duration) *time.Time { v := now.Add(-d); return &v }
	convs := []plugin.ConversationSummary{
		{ID: "1", LastActivatedAt: now.Add(-40 * day)},
		{ID: "2", LastActivatedAt: now.Add(-10 * day)},
		{ID: "3", LastActivatedAt: now.Add(-40 * day), PinnedAt: at(50 * day)},
		{ID: "4", LastActivatedAt: now.Add(-40 * day), ArchivedAt: at(35 * day)},
		{ID: "5", LastActivatedAt: now},
	}
	for _, tt := range []struct {
		days int
		want string
	}{{30, "1"}, {5, "1 2"}, {0, "1 2"}, {100, ""}} {
		var got string
		for i, c := range Stale(convs, now.Add(-time.Duration(tt.days)*day)) {
			if i > 0 {
				got += " "
			}
			got += c.ID
		}
		if got != tt.want {
			t.Errorf("--days %d: stale = %q, want %q", tt.days, got, tt.want)
		}
	}
}
