package conversation

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Labels are written as the Rust jp's object of key to value; the array
// older versions wrote reads as keys with empty values.
func TestLabelsRustFormat(t *testing.T) {
	var m Metadata
	if err := json.Unmarshal([]byte(`{"title":"t","last_activated_at":"2026-01-01T00:00:00Z","labels":{"team":"core","wip":""}}`), &m); err != nil {
		t.Fatal(err)
	}
	if got := m.LabelMap(); !reflect.DeepEqual(got, map[string]string{"team": "core", "wip": ""}) {
		t.Fatalf("LabelMap = %v", got)
	}
	if got := strings.Join(m.Labels(), ","); got != "team=core,wip" {
		t.Fatalf("Labels = %q", got)
	}
	lm := m.LabelMap()
	ApplyLabels(lm, []LabelDirective{{Op: LabelSet, Key: "team", Value: "infra"}, {Op: LabelRemove, Key: "wip"}})
	m.SetLabelMap(lm)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"labels":{"team":"infra"}`) {
		t.Fatalf("written %s, want labels as an object", b)
	}

	var old Metadata
	if err := json.Unmarshal([]byte(`{"title":"t","last_activated_at":"2026-01-01T00:00:00Z","labels":["bug-42","a.b"]}`), &old); err != nil {
		t.Fatal(err)
	}
	if got := old.LabelMap(); !reflect.DeepEqual(got, map[string]string{"bug-42": "", "a.b": ""}) {
		t.Fatalf("legacy LabelMap = %v", got)
	}
	m.SetLabelMap(nil)
	if b, _ := json.Marshal(m); strings.Contains(string(b), "labels") {
		t.Fatalf("no labels still writes the key: %s", b)
	}
}

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
