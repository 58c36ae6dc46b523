package main

import (
	"testing"
)

// TestCompactFlag reads --compact values: bare, the configured rules;
// SPEC, an inline rule; a bad one, one usage line.
func TestCompactFlag(t *testing.T) {
	if s, err := compactFlag(nil); s != nil || err != nil {
		t.Errorf("no flag: %+v, %v", s, err)
	}
	s, err := compactFlag([]string{"", "r+t:..-2"})
	if err != nil || !s.WithConfigRules || len(s.Rules) != 1 || !s.Rules[0].Reasoning || s.Rules[0].Tools == nil {
		t.Errorf("bare and SPEC: %+v, %v", s, err)
	}
	if _, err := compactFlag([]string{"q"}); err == nil {
		t.Error("a bad SPEC was taken")
	}
}
