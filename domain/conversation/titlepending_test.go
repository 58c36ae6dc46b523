package conversation

import (
	"encoding/json"
	"testing"
)

// The title_pending mark is set and cleared in metadata.local.json beside
// keys this version does not know, which survive both.
func TestTitlePendingKeepsOtherKeys(t *testing.T) {
	var m LocalMetadata
	if err := json.Unmarshal([]byte(`{"zeta":{"a":1},"local":true}`), &m); err != nil {
		t.Fatal(err)
	}
	if m.TitlePending() {
		t.Fatal("pending without the key")
	}
	if !m.SetTitlePending(true) || m.SetTitlePending(true) {
		t.Fatal("SetTitlePending(true) reports no change, or a change twice")
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back LocalMetadata
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.TitlePending() || string(back.Extra["zeta"]) != `{"a":1}` || !back.Local {
		t.Fatalf("round trip: %s", b)
	}
	if !back.SetTitlePending(false) || back.TitlePending() || string(back.Extra["zeta"]) != `{"a":1}` {
		t.Fatalf("cleared: %+v", back.Extra)
	}
}
