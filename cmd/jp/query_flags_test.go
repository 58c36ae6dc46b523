package main

import (
	"slices"
	"testing"
)

// TestOptionalArgs: --fork and --quote take their value only when it is
// attached or is a number (--fork) or true/false (--quote); otherwise
// the next word stays the message; nothing after "--" changes.
func TestOptionalArgs(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want []string }{
		{[]string{"q", "--fork", "hello"}, []string{"q", "--fork=all", "hello"}},
		{[]string{"q", "--fork", "3", "hello"}, []string{"q", "--fork=3", "hello"}},
		{[]string{"q", "--fork=2", "x"}, []string{"q", "--fork=2", "x"}},
		{[]string{"q", "--fork"}, []string{"q", "--fork=all"}},
		{[]string{"q", "--quote", "what", "now"}, []string{"q", "--quote=true", "what", "now"}},
		{[]string{"q", "--quote", "false", "x"}, []string{"q", "--quote=false", "x"}},
		{[]string{"q", "--", "--fork", "--quote"}, []string{"q", "--", "--fork", "--quote"}},
	}
	for _, tt := range cases {
		if got := optionalArgs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("optionalArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
