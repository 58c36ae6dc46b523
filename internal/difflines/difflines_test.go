package difflines_test

import (
	"testing"

	"github.com/jpcli/jp/internal/difflines"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]difflines.Kind{
		"diff --git a/x b/x": difflines.Head,
		"--- a/x":            difflines.Head,
		"+++ b/x":            difflines.Head,
		"rename from a":      difflines.Head,
		"rename to b":        difflines.Head,
		"@@ -1 +1 @@":        difflines.Hunk,
		"+added":             difflines.Add,
		"+++added":           difflines.Add, // no space: content, not a header
		"-removed":           difflines.Del,
		" context":           difflines.Context,
		"":                   difflines.Context,
	} {
		if got := difflines.Classify(line); got != want {
			t.Errorf("Classify(%q) = %v, want %v", line, got, want)
		}
	}
}
