package main

import (
	"slices"
	"testing"
)

// TestOptionalFlagValues checks the rewriting of the flags whose value
// is optional: a bare one gets noValue, a following word is its value
// (jp conversation compact only), other commands are left alone.
func TestOptionalFlagValues(t *testing.T) {
	cases := []struct{ in, want []string }{
		{[]string{"c", "compact", "-t"}, []string{"c", "compact", "-t" + noValue}},
		{[]string{"c", "compact", "-t", "omit", "123"}, []string{"c", "compact", "-tomit", "123"}},
		{[]string{"conversation", "compact", "--summarize", "--dry-run"}, []string{"conversation", "compact", "--summarize=" + noValue, "--dry-run"}},
		{[]string{"c", "compact", "-s", "the API"}, []string{"c", "compact", "-sthe API"}},
		{[]string{"--cfg", "x.toml", "q", "--compact", "hello"}, []string{"--cfg", "x.toml", "q", "--compact=" + noValue, "hello"}},
		{[]string{"q", "-k", "hello"}, []string{"q", "-k" + noValue, "hello"}},
		{[]string{"c", "fork", "--compact=r+t"}, []string{"c", "fork", "--compact=r+t"}},
		{[]string{"c", "print", "-s", "user"}, []string{"c", "print", "-s", "user"}},
		{[]string{"c", "compact", "--", "-t"}, []string{"c", "compact", "--", "-t"}},
	}
	for _, tc := range cases {
		if got := optionalFlagValues(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("optionalFlagValues(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCompactFlag reads --compact values: bare, the configured rules;
// SPEC, an inline rule; a bad one, one usage line.
func TestCompactFlag(t *testing.T) {
	if s, err := compactFlag(nil); s != nil || err != nil {
		t.Errorf("no flag: %+v, %v", s, err)
	}
	s, err := compactFlag([]string{noValue, "r+t:..-2"})
	if err != nil || !s.WithConfigRules || len(s.Rules) != 1 || !s.Rules[0].Reasoning || s.Rules[0].Tools == nil {
		t.Errorf("bare and SPEC: %+v, %v", s, err)
	}
	if _, err := compactFlag([]string{"q"}); err == nil {
		t.Error("a bad SPEC was taken")
	}
}
