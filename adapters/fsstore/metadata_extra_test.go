package fsstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// TestMetadataKeepsUnknownKeys: keys a newer jp wrote into metadata.json
// survive this version's rewrites (a title change, an append, the fold at
// turn end), reach the projection, and do not stop listings.
func TestMetadataKeepsUnknownKeys(t *testing.T) {
	sc := newScene(t)
	ctx := t.Context()
	id := sc.create(t, ports.NewConversation{Title: "t"})
	path := filepath.Join(sc.siloConv(t, id), "metadata.json")
	var doc map[string]any
	if err := json.Unmarshal(readFile(t, path), &doc); err != nil {
		t.Fatal(err)
	}
	doc["tags"] = []any{"release", "urgent"}
	doc["color"] = "teal"
	b, _ := json.Marshal(doc)
	writeFile(t, path, b)

	if err := sc.s.UpdateMetadata(ctx, sc.loc, id, func(m *conversation.Metadata) error { m.Title = "renamed"; return nil }); err != nil {
		t.Fatal(err)
	}
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 2)...)

	proj := filepath.Join(sc.root, ".jp", "conversations", string(id), "metadata.json")
	for _, p := range []string{path, proj} {
		got := string(readFile(t, p))
		if !strings.Contains(got, `"tags": [`) || !strings.Contains(got, `"color": "teal"`) || !strings.Contains(got, `"title": "renamed"`) {
			t.Errorf("%s lost a key:\n%s", p, got)
		}
	}
	list, err := sc.s.List(ctx, sc.loc)
	if err != nil || len(list) != 1 || list[0].Metadata.Title != "renamed" || list[0].Metadata.EventsCount == 0 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if string(list[0].Metadata.Extra["color"]) != `"teal"` {
		t.Errorf("extra = %s", list[0].Metadata.Extra)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
