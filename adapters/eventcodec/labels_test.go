package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Labels are written as the Rust jp's object of key to value; the array
// older versions wrote reads as keys with empty values.
func TestLabelsRustFormat(t *testing.T) {
	var m conversation.Metadata
	if err := UnmarshalMetadata([]byte(`{"title":"t","last_activated_at":"2026-01-01T00:00:00Z","labels":{"team":"core","wip":""}}`), &m); err != nil {
		t.Fatal(err)
	}
	if got := m.LabelMap(); !reflect.DeepEqual(got, map[string]string{"team": "core", "wip": ""}) {
		t.Fatalf("LabelMap = %v", got)
	}
	if got := strings.Join(m.Labels(), ","); got != "team=core,wip" {
		t.Fatalf("Labels = %q", got)
	}
	lm := m.LabelMap()
	conversation.ApplyLabels(lm, []conversation.LabelDirective{{Op: conversation.LabelSet, Key: "team", Value: "infra"}, {Op: conversation.LabelRemove, Key: "wip"}})
	m.SetLabelMap(lm)
	b, err := MarshalMetadata(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"labels":{"team":"infra"}`) {
		t.Fatalf("written %s, want labels as an object", b)
	}

	var old conversation.Metadata
	if err := UnmarshalMetadata([]byte(`{"title":"t","last_activated_at":"2026-01-01T00:00:00Z","labels":["bug-42","a.b"]}`), &old); err != nil {
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
