package eventcodec

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

func TestLocalMetadataKeepsUnknownKeys(t *testing.T) {
	in := `{"future":{"x":[1,2]},"last_root":{"path":"/a","last_used":"2026-11-29T10:00:00Z","live":true}}`
	var m conversation.LocalMetadata
	if err := json.Unmarshal([]byte(in), (*LocalJSON)(&m)); err != nil {
		t.Fatal(err)
	}
	if m.LastRoot == nil || m.LastRoot.Path != "/a" || m.LastRoot.Live != nil {
		t.Fatalf("last_root = %+v (live must not be kept)", m.LastRoot)
	}
	m.LastRoot.Path = "/b"
	out, err := json.Marshal(LocalJSON(m))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"future":{"x":[1,2]}`) || !strings.Contains(string(out), `"/b"`) || strings.Contains(string(out), "live") {
		t.Fatalf("rewrite = %s", out)
	}
}

// TestLocalMetadataKeepsNestedUnknownKeys: keys this version does not know
// inside last_root survive a rewrite, also one that moves the record;
// the derived live flag is never stored.
func TestLocalMetadataKeepsNestedUnknownKeys(t *testing.T) {
	in := `{"last_root":{"path":"/a","last_used":"2026-01-02T03:04:05Z","zz_inner":1,"zz_obj":{"b":[true]},"live":true},"zz_top":"x"}`
	var m conversation.LocalMetadata
	if err := json.Unmarshal([]byte(in), (*LocalJSON)(&m)); err != nil {
		t.Fatal(err)
	}
	m.LastRoot = &conversation.LastRoot{Path: "/b", LastUsed: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)}
	out, err := json.Marshal(LocalJSON(m))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"last_root":{"last_used":"2026-02-03T04:05:06Z","path":"/b","zz_inner":1,"zz_obj":{"b":[true]}},"zz_top":"x"}`
	if string(out) != want {
		t.Fatalf("rewritten:\n%s\nwant\n%s", out, want)
	}
}

// The title_pending mark is set and cleared in metadata.local.json beside
// keys this version does not know, which survive both.
func TestTitlePendingKeepsOtherKeys(t *testing.T) {
	var m conversation.LocalMetadata
	if err := json.Unmarshal([]byte(`{"zeta":{"a":1},"local":true}`), (*LocalJSON)(&m)); err != nil {
		t.Fatal(err)
	}
	if m.TitlePending() {
		t.Fatal("pending without the key")
	}
	if !m.SetTitlePending(true) || m.SetTitlePending(true) {
		t.Fatal("SetTitlePending(true) reports no change, or a change twice")
	}
	b, err := json.Marshal(LocalJSON(m))
	if err != nil {
		t.Fatal(err)
	}
	var back conversation.LocalMetadata
	if err := json.Unmarshal(b, (*LocalJSON)(&back)); err != nil {
		t.Fatal(err)
	}
	if !back.TitlePending() || string(back.Extra["zeta"]) != `{"a":1}` || !back.Local {
		t.Fatalf("round trip: %s", b)
	}
	if !back.SetTitlePending(false) || back.TitlePending() || string(back.Extra["zeta"]) != `{"a":1}` {
		t.Fatalf("cleared: %+v", back.Extra)
	}
}
