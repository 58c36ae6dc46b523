package conversation

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseLabels(t *testing.T) {
	d, err := ParseLabelSet("note=a, b=c")
	if err != nil || d != (LabelDirective{Op: LabelSet, Key: "note", Value: "a, b=c"}) {
		t.Fatalf("ParseLabelSet = %+v, %v", d, err)
	}
	for in, want := range map[string]string{
		"":           "the label key is empty",
		"1x":         `label key "1x" starts with '1'`,
		"a.b=c":      `invalid character '.' in label key "a.b"`,
		":rule":      "label alias ':rule'",
		"k=a\nb":     "control or invisible characters",
		"k=a\u200bb": "control or invisible characters",
	} {
		if _, err := ParseLabelSet(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLabelSet(%q) = %v, want %q", in, err, want)
		}
	}
	if _, err := ParseLabelRemove("k=v"); err == nil {
		t.Error("ParseLabelRemove(k=v) took a value")
	}
	lm := map[string]string{"a": "1", "b": "2"}
	got := ApplyLabels(lm, []LabelDirective{{Op: LabelRemove, Key: "zz"}, {Op: LabelRemoveAll}, {Op: LabelSet, Key: "c"}})
	if !reflect.DeepEqual(got.Missing, []string{"zz"}) || len(got.Removed) != 2 || !reflect.DeepEqual(lm, map[string]string{"c": ""}) {
		t.Fatalf("ApplyLabels = %+v, labels %v", got, lm)
	}
	sels := []LabelSelector{}
	for _, raw := range []string{"team=core", "wip"} {
		s, err := ParseLabelSelector(raw)
		if err != nil {
			t.Fatal(err)
		}
		sels = append(sels, s)
	}
	if !MatchLabels(map[string]string{"team": "core", "wip": "x"}, sels) || MatchLabels(map[string]string{"team": "infra", "wip": ""}, sels) || MatchLabels(map[string]string{"team": "core"}, sels) {
		t.Fatal("MatchLabels: every selector must match, key=value exactly")
	}
	if _, err := ParseLabelSelector(":x"); err == nil {
		t.Fatal("an alias filter was taken")
	}
}
