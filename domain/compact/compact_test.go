package compact

import (
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

func view(n int, start time.Time, step time.Duration) View {
	v := View{}
	for i := range n {
		v.Starts = append(v.Starts, start.Add(time.Duration(i)*step))
	}
	return v
}

func keep(t *testing.T, s string) Bound {
	t.Helper()
	b, err := ParseKeep(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rng(t *testing.T, s string, from bool) Bound {
	t.Helper()
	b, err := ParseRangeBound(s, from)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPlan checks the ranges the rules resolve to, as the Rust jp's
// resolve_range and keep-first/keep-last do.
func TestPlan(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(10 * time.Hour)
	v := view(10, t0, time.Hour) // turns at 0h..9h
	strip := func(kf, kl Bound) Rule { r := DefaultRule(); r.KeepFirst, r.KeepLast = kf, kl; return r }
	cases := []struct {
		name string
		spec Spec
		want []Range
	}{
		{"default rule", Spec{Rules: []Rule{DefaultRule()}}, []Range{{1, 8}}},
		{"keep 2 and 3", Spec{Rules: []Rule{strip(keep(t, "2"), keep(t, "3"))}}, []Range{{2, 6}}},
		{"keep more than there is", Spec{Rules: []Rule{strip(keep(t, "6"), keep(t, "5"))}}, nil},
		{"keep last 3h", Spec{Rules: []Rule{strip(keep(t, "0"), keep(t, "3h"))}}, []Range{{0, 7}}},
		{"keep first 2h", Spec{Rules: []Rule{strip(keep(t, "2h"), keep(t, "0"))}}, []Range{{3, 9}}},
		{"from to", Spec{Rules: []Rule{DefaultRule()}, From: rng(t, "3", true), To: rng(t, "5", false)}, []Range{{2, 4}}},
		{"to -1", Spec{Rules: []Rule{DefaultRule()}, From: rng(t, "1", true), To: rng(t, "-1", false)}, []Range{{0, 9}}},
		{"empty rule", Spec{Rules: []Rule{{}}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Plan(v, tc.spec, now)
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i].Range != tc.want[i] {
					t.Errorf("rule %d: got %+v, want %+v", i, got[i].Range, tc.want[i])
				}
			}
		})
	}

	t.Run("after last compaction and summary refresh", func(t *testing.T) {
		s := "old"
		v := v
		v.Overlays = []conversation.Compaction{{FromTurn: 2, ToTurn: 5, Summary: &s}}
		got := Plan(v, Spec{Rules: []Rule{DefaultRule()}, From: rng(t, "last-compaction", true)}, now)
		if len(got) != 1 || got[0].Range != (Range{6, 8}) {
			t.Errorf("--from last-compaction: %+v", got)
		}
		sum := DefaultRule()
		sum.Summary = &Summary{}
		got = Plan(v, Spec{Rules: []Rule{sum}, From: rng(t, "4", true), To: rng(t, "8", false)}, now)
		if len(got) != 1 || got[0].Range != (Range{2, 7}) || got[0].Overlay.Summary == nil {
			t.Errorf("a summary touching another grows to both: %+v", got)
		}
	})
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{"@0", "x", "-x"} {
		if _, err := ParseKeep(s); err == nil {
			t.Errorf("ParseKeep(%q) took it", s)
		}
	}
	if _, err := ParseRangeBound("last-compaction", false); err == nil {
		t.Error("--to last-compaction taken")
	}
	if _, err := ToolsMode("nope"); err == nil {
		t.Error("tool mode nope taken")
	}
}

// TestParseRule reads the Rust jp's --compact=SPEC forms.
func TestParseRule(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	v := view(10, t0, time.Hour)
	for spec, want := range map[string]Range{
		"r":            {1, 8},
		"r+t:..":       {0, 9},
		"s:..-3":       {0, 6},
		"t=sreq:5..-3": {4, 6},
		"r:-2":         {0, 7},
		"r:3":          {2, 9},
		"r:2..4":       {1, 3},
	} {
		r, err := ParseRule(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		got := Plan(v, Spec{Rules: []Rule{r}}, t0)
		if len(got) != 1 || got[0].Range != want {
			t.Errorf("%s: got %+v, want %+v", spec, got, want)
		}
	}
	for _, bad := range []string{"", "x", "r=1", "r:0", "t=bad"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("%q taken", bad)
		}
	}
}
