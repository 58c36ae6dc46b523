package terminal

import (
	"strings"
	"testing"
)

// The picker keeps the conversations whose ID or title holds what was
// typed (any case), and a title's control characters never reach the
// screen.
func TestPickerFiltersByTitleAndID(t *testing.T) {
	t.Parallel()
	items := []PickItem{
		{ID: "17961277399", Title: "Fix the flaky build"},
		{ID: "17961277400", Title: "Release notes\x1b[2J\nsecond line"},
		{ID: "18000000000", Title: ""},
	}
	kept := func(filter string) []string {
		var out []string
		for _, it := range items {
			if pickerMatches(it, filter) {
				out = append(out, it.ID)
			}
		}
		return out
	}
	for filter, want := range map[string]string{
		"FLAKY":     "17961277399",
		"18000":     "18000000000",
		"1796127":   "17961277399 17961277400",
		"untitled":  "18000000000",
		"notes":     "17961277400",
		"no such":   "",
		"second li": "17961277400",
	} {
		if got := strings.Join(kept(filter), " "); got != want {
			t.Errorf("filter %q keeps %q, want %q", filter, got, want)
		}
	}
	if l := pickerLabel(items[1]); strings.ContainsAny(l, "\x1b\n") {
		t.Errorf("label %q holds control characters", l)
	}
}
