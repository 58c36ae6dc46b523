package main

import (
	"slices"
	"testing"
)

// TestShortCfgValues: only the values given with the short -c are
// candidates for the old jp q -c ID; --cfg and words after "--" are not.
func TestShortCfgValues(t *testing.T) {
	got := shortCfgValues([]string{"q", "-c", "123", "--cfg", "456", "-c=a=b", "-cpersonas/dev", "-i", "7", "--", "-c", "9"})
	want := []string{"123", "a=b", "personas/dev"}
	if !slices.Equal(got, want) {
		t.Fatalf("shortCfgValues = %q, want %q", got, want)
	}
}

// TestParsePluginArgsShortCfg: -c is the global --cfg before a plugin's
// command too.
func TestParsePluginArgsShortCfg(t *testing.T) {
	pa, ok := parsePluginArgs([]string{"-c", "query.loop=never", "--cfg=x.toml", "hello", "-c", "y"})
	if !ok {
		t.Fatal("parsePluginArgs refused -c")
	}
	if !slices.Equal(pa.cfg, []string{"query.loop=never", "x.toml"}) || !slices.Equal(pa.words, []string{"hello", "-c", "y"}) {
		t.Fatalf("cfg %q words %q", pa.cfg, pa.words)
	}
}
