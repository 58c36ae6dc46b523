package timespec

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	day := 24 * time.Hour
	cases := map[string]time.Duration{
		"3w": 21 * day, "30d": 30 * day, "6h": 6 * time.Hour, "5days": 5 * day, "2mins": 2 * time.Minute,
		"1h 30m": 90 * time.Minute, "1h30m": 90 * time.Minute, "15s": 15 * time.Second, "1M": 2630016 * time.Second,
		"1y": 31557600 * time.Second, "2 hours": 2 * time.Hour, "500ms": 500 * time.Millisecond, "0s": 0,
	}
	for in, want := range cases {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"": "empty", "5": "needs a unit", "5x": "unknown unit", "h": "expected a number", "2026-01-01": "unknown unit", "99999999999y": "too long"} {
		if _, err := ParseDuration(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDuration(%q) = %v, want an error with %q", in, err, want)
		}
	}
}

func TestParseThreshold(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	idTime := func(s string) (time.Time, bool) {
		if s == "17727264000" {
			return time.Unix(1772726400, 0).UTC(), true
		}
		return time.Time{}, false
	}
	cases := map[string]time.Time{
		"17727264000":          time.Unix(1772726400, 0).UTC(),
		"2d":                   now.Add(-48 * time.Hour),
		"2026-01-01":           time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		"2026-02-03T04:05:06Z": time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC),
	}
	for in, want := range cases {
		got, err := ParseThreshold(in, now, idTime)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseThreshold(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseThreshold("yesterday", now, idTime); err == nil || !strings.Contains(err.Error(), `invalid time "yesterday": expected a conversation ID, a duration`) {
		t.Errorf("ParseThreshold(yesterday) = %v", err)
	}
}
