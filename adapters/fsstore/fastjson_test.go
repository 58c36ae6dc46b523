package fsstore

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
)

var metadataSeeds = []string{
	`{"title":"t","created_at":"2026-09-08T10:12:00Z","last_activated_at":"2026-09-08T10:12:00.123456789Z","pinned_at":null,"archived_at":null,"events_count":12}`,
	"{\n  \"title\": \"caf\u00e9 \u2603\",\n  \"created_at\": \"2026-09-08T10:12:00+02:00\",\n  \"pinned_at\": \"2026-09-09T00:00:00Z\",\n  \"events_count\": 0\n}\n",
	`{}`,
	`{"title":"a \"quoted\" title"}`,
	`{"Title":"case-insensitive in encoding/json"}`,
	`{"title":null}`,
	`{"events_count":1e3}`,
	`{"events_count":-4}`,
	`{"events_count":012}`,
	`{"created_at":"2026-09-08 10:12:00"}`,
	`{"title":"t","future":{"x":[1,2]}}`,
	`{"title":"t",}`,
	`{"title":"t"} x`,
	`{"title":"\xff"}`,
	`null`,
	`[]`,
	`{"title":"t","title":"u"}`,
}

var localSeeds = []string{
	`{"last_root":{"path":"/w/a","last_used":"2026-09-08T10:12:00Z"}}`,
	`{"local":true,"last_root":{"path":"/w/a","last_used":"2026-09-08T10:12:00Z","live":true}}`,
	`{"local":false,"future":{"nested":[1, 2, {"x":"y\"z"}]},"flag":true,"n": 1.5 }`,
	`{"last_root":null}`,
	`{"local":null}`,
	`{"local":"yes"}`,
	`{"a":1,"a":2}`,
	`{"a":[1,}`,
	`{"a":"unterminated}`,
	`{}`,
	` {"local" : true } `,
	`{"x":"\u00e9"}`,
}

// FuzzFastMetadata checks that whenever the fast decoder accepts a
// document, encoding/json accepts it too and gives the same value.
func FuzzFastMetadata(f *testing.F) {
	for _, s := range metadataSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast, slow conversation.Metadata
		if !fastMetadata(b, &fast) {
			return
		}
		if err := json.Unmarshal(b, storedForm(&slow)); err != nil {
			t.Fatalf("fast decoder accepted %q, encoding/json says %v", b, err)
		}
		if !sameEncoding(t, fast, slow) {
			t.Fatalf("decoding %q: fast %+v, encoding/json %+v", b, fast, slow)
		}
	})
}

// FuzzFastLocal does the same for metadata.local.json.
func FuzzFastLocal(f *testing.F) {
	for _, s := range localSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast, slow conversation.LocalMetadata
		if !fastLocal(b, &fast) {
			return
		}
		if err := json.Unmarshal(b, storedForm(&slow)); err != nil {
			t.Fatalf("fast decoder accepted %q, encoding/json says %v", b, err)
		}
		if !sameEncoding(t, fast, slow) || !reflect.DeepEqual(fast.Extra, slow.Extra) || fast.Local != slow.Local || (fast.LastRoot == nil) != (slow.LastRoot == nil) {
			t.Fatalf("decoding %q: fast %+v, encoding/json %+v", b, fast, slow)
		}
	})
}

func sameEncoding(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(storedForm(a))
	y, err2 := json.Marshal(storedForm(b))
	if err1 != nil || err2 != nil {
		t.Fatalf("encode: %v, %v", err1, err2)
	}
	return string(x) == string(y)
}

func TestFastDecodersTakeWhatTheStoreWrites(t *testing.T) {
	var m conversation.Metadata
	if !fastMetadata([]byte(metadataSeeds[0]), &m) || !fastMetadata([]byte(metadataSeeds[1]), &m) {
		t.Fatal("the fast decoder declined metadata.json as the store writes it")
	}
	var l conversation.LocalMetadata
	for _, s := range localSeeds[:3] {
		if s == localSeeds[1] {
			continue // "live" is left to encoding/json
		}
		if !fastLocal([]byte(s), &l) {
			t.Fatalf("the fast decoder declined %s", s)
		}
	}
	b, _ := json.MarshalIndent(storedForm(conversation.LocalMetadata{Local: true, LastRoot: &conversation.LastRoot{Path: "/a"}}), "", "  ")
	if !fastLocal(b, &l) || !l.Local || l.LastRoot.Path != "/a" {
		t.Fatalf("the fast decoder declined or misread %s", b)
	}
}
