package web

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// TestRewind: the page's Rewind asks jp for the checkout it views, a dry
// run first; jp's refusal is 409 with its message; a bad request reaches
// jp not at all.
func TestRewind(t *testing.T) {
	f := fixture()
	f.events[watchConv] = plugin.Events{Conversation: watchConv, Data: asStored(storedEvents())}
	_, ts := newServer(t, f)
	body := map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "conversation": watchConv, "turn": 1, "dry_run": true}
	code, ans := postJSON(t, ts, "/api/rewind", body)
	if code != http.StatusOK || ans["dry_run"] != true || fmt.Sprint(ans["files"]) != "[map[action:restore path:greet.txt turns:[2]]]" || fmt.Sprint(ans["conflicts"]) != "[]" || ans["fork"] != nil {
		t.Fatalf("dry run = %d %v", code, ans)
	}
	body["dry_run"] = false
	if code, ans := postJSON(t, ts, "/api/rewind", body); code != http.StatusOK || ans["fork"] != "17127583950" {
		t.Fatalf("rewind = %d %v", code, ans)
	}
	body["conversation"] = "17127583999"
	if code, ans := postJSON(t, ts, "/api/rewind", body); code != http.StatusConflict || ans["error"] != "conversation 17127583999 not found" {
		t.Fatalf("rewind of an unknown conversation = %d %v", code, ans)
	}
	for _, bad := range []map[string]any{
		{"workspace": "a1b2c3d", "root": "/src/a", "conversation": "nope", "turn": 1},
		{"workspace": "a1b2c3d", "root": "/src/a", "conversation": watchConv, "turn": -1},
	} {
		if code, _ := postJSON(t, ts, "/api/rewind", bad); code != http.StatusBadRequest {
			t.Fatalf("rewind %v = %d, want 400", bad, code)
		}
	}
	ref := workspace.Ref{ID: "a1b2c3d", Root: "/src/a"}
	want := []rewindCall{{ref, watchConv, 1, true}, {ref, watchConv, 1, false}, {ref, "17127583999", 1, false}}
	f.mu.Lock()
	defer f.mu.Unlock()
	if fmt.Sprint(f.rewinds) != fmt.Sprint(want) {
		t.Fatalf("rewinds = %+v, want %+v", f.rewinds, want)
	}
}

// TestTrust: GET /api/trust reviews the checkout (jp's trust dry run),
// POST trusts it; a request without the checkout's root is 400 and
// reaches jp not at all.
func TestTrust(t *testing.T) {
	f := fixture()
	f.untrusted = true
	_, ts := newServer(t, f)
	var st plugin.Trusted
	if code := getJSON(t, ts, "/api/trust?workspace=a1b2c3d&root="+url.QueryEscape("/src/a"), &st); code != http.StatusOK || st.Trusted || len(st.Held) != 1 || st.Held[0].Key != "mcp.servers.git" {
		t.Fatalf("review = %d %+v", code, st)
	}
	if st.Hash == "" {
		t.Fatal("the review carries no hash for the trust to repeat")
	}
	if code, ans := postJSON(t, ts, "/api/trust", map[string]any{"workspace": "a1b2c3d", "root": "/src/a"}); code != http.StatusBadRequest {
		t.Fatalf("trust without the shown review's hash = %d %v, want 400", code, ans)
	}
	if code, ans := postJSON(t, ts, "/api/trust", map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "hash": "stale"}); code == http.StatusOK {
		t.Fatalf("trust of a configuration that changed since it was shown = %d %v, want a refusal", code, ans)
	}
	if code, ans := postJSON(t, ts, "/api/trust", map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "hash": st.Hash}); code != http.StatusOK || ans["trusted"] != true {
		t.Fatalf("trust = %d %v", code, ans)
	}
	if code, _ := postJSON(t, ts, "/api/trust", map[string]any{"workspace": "a1b2c3d"}); code != http.StatusBadRequest {
		t.Fatalf("trust without a root = %d", code)
	}
	ref := workspace.Ref{ID: "a1b2c3d", Root: "/src/a"}
	f.mu.Lock()
	defer f.mu.Unlock()
	if want := []trustCall{{ref, true}, {ref, false}, {ref, false}}; fmt.Sprint(f.trusts) != fmt.Sprint(want) {
		t.Fatalf("trusts = %+v, want %+v", f.trusts, want)
	}
}
