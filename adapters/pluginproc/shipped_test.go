package pluginproc

import (
	"strings"
	"testing"
)

func TestParseShippedList(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	got, err := parseShippedList([]byte(sum + "  jp-titles\n" + strings.ToUpper(sum) + " *jp-prune\n\n"))
	if err != nil || len(got) != 2 || got["jp-titles"] != sum || got["jp-prune"] != sum {
		t.Fatalf("parseShippedList = %v, %v", got, err)
	}
	for _, bad := range []string{"abc  jp-titles", sum, sum + "  ../jp-x", "zz" + sum[2:] + "  jp-x"} {
		if _, err := parseShippedList([]byte(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("parseShippedList(%q) = %v, want an error naming line 1", bad, err)
		}
	}
}
