package conversation

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckLastRoot(t *testing.T) {
	a := &LastRoot{Path: "/w/a", LastUsed: t0}
	moved := &LastRoot{Path: "/w/a", LastUsed: t0.Add(1)}
	yes := true
	echoed := &LastRoot{Path: "/w/a", LastUsed: t0, Live: &yes}
	tests := []struct {
		name     string
		root     string
		stored   *LastRoot
		live     bool
		expected *LastRoot
		want     string // "" = runs
	}{
		{"absent record runs", "/w/b", nil, false, nil, ""},
		{"same checkout runs", "/w/a", a, true, nil, ""},
		{"live record elsewhere refuses naming it", "/w/b", a, true, nil, "last ran in /w/a, another checkout"},
		{"dead record refuses until confirmed", "/w/b", a, false, nil, "a worktree that no longer exists"},
		{"dead record confirmed runs", "/w/b", a, false, a, ""},
		{"inferred continuation matches", "/w/a", a, true, a, ""},
		{"echoed live flag is ignored", "/w/a", a, false, echoed, ""},
		{"record moved since read", "/w/a", a, true, moved, "it moved since it was read"},
		{"expected but no record", "/w/a", nil, false, a, "no last-root record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckLastRoot(tt.root, tt.stored, tt.live, tt.expected)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var le *LastRootError
			if !errors.As(err, &le) || !errors.Is(err, ErrLastRootMismatch) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if tt.stored != nil && (le.Current.Path != tt.stored.Path || le.Current.Live == nil || *le.Current.Live != tt.live) {
				t.Fatalf("current record = %+v", le.Current)
			}
		})
	}
}
