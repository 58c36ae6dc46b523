// Package timespec reads the times and durations the Rust jp's command line
// takes: durations as its humantime crate writes them ("5days", "2mins",
// "1h 30m", "3w"), and points in time for --from/--until (a conversation
// ID, a duration ago, an RFC 3339 time or a YYYY-MM-DD date).
package timespec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// units are humantime's unit names and their lengths (a month is 30.44
// days, a year 365.25 days, as humantime counts them).
var units = map[string]time.Duration{
	"nsec": time.Nanosecond, "ns": time.Nanosecond,
	"usec": time.Microsecond, "us": time.Microsecond, "µs": time.Microsecond,
	"msec": time.Millisecond, "ms": time.Millisecond,
	"seconds": time.Second, "second": time.Second, "sec": time.Second, "secs": time.Second, "s": time.Second,
	"minutes": time.Minute, "minute": time.Minute, "min": time.Minute, "mins": time.Minute, "m": time.Minute,
	"hours": time.Hour, "hour": time.Hour, "hr": time.Hour, "hrs": time.Hour, "h": time.Hour,
	"days": 24 * time.Hour, "day": 24 * time.Hour, "d": 24 * time.Hour,
	"weeks": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "w": 7 * 24 * time.Hour,
	"months": 2630016 * time.Second, "month": 2630016 * time.Second, "M": 2630016 * time.Second,
	"years": 31557600 * time.Second, "year": 31557600 * time.Second, "y": 31557600 * time.Second,
}

// ParseDuration reads a duration as the Rust jp does: numbers each with a
// unit, optionally separated by spaces ("3w", "30d", "1h 30m", "5days").
func ParseDuration(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, errors.New("the duration is empty")
	}
	var total time.Duration
	for in != "" {
		i := 0
		for i < len(in) && in[i] >= '0' && in[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("duration %q: expected a number at %q", s, in)
		}
		n, err := strconv.ParseInt(in[:i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("duration %q: number %s is too large", s, in[:i])
		}
		in = strings.TrimLeft(in[i:], " ")
		j := 0
		for j < len(in) && !(in[j] >= '0' && in[j] <= '9') && in[j] != ' ' {
			j++
		}
		unit := in[:j]
		d, ok := units[unit]
		if !ok {
			if unit == "" {
				return 0, fmt.Errorf("duration %q: %d needs a unit (s, m, h, d, w, M or y)", s, n)
			}
			return 0, fmt.Errorf("duration %q: unknown unit %q (use s, m, h, d, w, M or y)", s, unit)
		}
		if n > int64(1<<62)/int64(d) || total > time.Duration(1<<62)-time.Duration(n)*d {
			return 0, fmt.Errorf("duration %q is too long", s)
		}
		total += time.Duration(n) * d
		in = strings.TrimLeft(in[j:], " ")
	}
	return total, nil
}

// ParseThreshold reads a point in time for --from/--until, as the Rust jp
// does: a conversation ID (when idTime knows it as one: its creation
// time), a duration before now ("3w", "30d"), an RFC 3339 time, or a
// YYYY-MM-DD date (midnight UTC).
func ParseThreshold(s string, now time.Time, idTime func(string) (time.Time, bool)) (time.Time, error) {
	s = strings.TrimSpace(s)
	if idTime != nil {
		if t, ok := idTime(s); ok {
			return t, nil
		}
	}
	if d, err := ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("invalid time %q: expected a conversation ID, a duration (3w, 30d, 6h), or a date (2026-01-01)", s)
}
