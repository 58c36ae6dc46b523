package fsstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/filesnap"
)

// The index keeps what another version wrote beside its records, at the
// top and in a record, through every rewrite.
func TestSnapshotIndexKeepsUnknownKeys(t *testing.T) {
	dir := t.TempDir()
	in := `{"version": 7, "records": [{"turn": "t1", "seq": 1, "path": "a.txt", "tool": "x", "at": "2026-01-01T00:00:00Z",
  "before": {"exists": false}, "after": {"exists": false}, "wrote": false, "mode": "0644"}]}`
	if err := os.WriteFile(filepath.Join(dir, snapIndex), []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := readSnapFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.index.Wrote("t1", "a.txt", filesnap.State{Exists: true, Hash: "h", Size: 1})
	s := &Store{}
	if err := s.writeSnapFile(dir, f); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(dir, snapIndex))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(out, &top); err != nil {
		t.Fatal(err)
	}
	rec := top["records"].([]any)[0].(map[string]any)
	if top["version"] != float64(7) || rec["mode"] != "0644" || rec["wrote"] != true {
		t.Fatalf("unknown keys lost or record not updated:\n%s", out)
	}
}

func TestSnapshotPathsStayInTheCheckout(t *testing.T) {
	for _, bad := range []string{"../x", "/etc/passwd", "a/../../x", "", "a\\b"} {
		if err := checkRel(bad); err == nil || !strings.Contains(err.Error(), "not inside the checkout") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if err := checkRel("sub/a.txt"); err != nil {
		t.Error(err)
	}
}
