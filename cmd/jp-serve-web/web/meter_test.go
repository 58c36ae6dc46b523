package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// TestMeterAndCompact: the page's meter and Compact ask jp for the
// checkout it views; jp's refusals are 409 with its message; a bad
// request is 400 and reaches jp not at all; a conversation with a turn
// running is not compacted.
func TestMeterAndCompact(t *testing.T) {
	f := fixture()
	f.events[watchConv] = plugin.Events{Conversation: watchConv, Data: asStored(storedEvents())}
	f.meter = plugin.Meter{Model: "demo/echo", Tokens: 1200, Window: 32000}
	_, ts := newServer(t, f)
	root := url.QueryEscape("/src/a")

	var m meterAnswer
	if code := getJSON(t, ts, "/api/meter?workspace=a1b2c3d&root="+root+"&conversation="+watchConv, &m); code != http.StatusOK || m != (meterAnswer{Text: "ctx 1k/32k", Model: "demo/echo", Tokens: 1200, Window: 32000}) {
		t.Fatalf("meter = %d %+v", code, m)
	}
	if code := getJSON(t, ts, "/api/meter?workspace=a1b2c3d&root="+root+"&conversation=17127583999", &m); code != http.StatusConflict {
		t.Fatalf("meter of an unknown conversation = %d", code)
	}
	if code, _ := get(t, ts, "/api/meter?workspace=a1b2c3d&root="+root+"&conversation=../x"); code != http.StatusBadRequest {
		t.Fatalf("meter of a bad ID = %d", code)
	}

	body := map[string]any{"workspace": "a1b2c3d", "root": "/src/a", "conversation": watchConv, "dry_run": true}
	code, ans := postJSON(t, ts, "/api/compact", body)
	if code != http.StatusOK || ans["dry_run"] != true || ans["added"] != float64(1) || ans["tokens_after"] != float64(300) {
		t.Fatalf("dry run = %d %v", code, ans)
	}
	body["dry_run"] = false
	if code, ans := postJSON(t, ts, "/api/compact", body); code != http.StatusOK || ans["dry_run"] != nil {
		t.Fatalf("compact = %d %v", code, ans)
	}
	body["conversation"] = "17127583999"
	if code, ans := postJSON(t, ts, "/api/compact", body); code != http.StatusConflict || ans["error"] != "conversation 17127583999 not found" {
		t.Fatalf("compact of an unknown conversation = %d %v", code, ans)
	}
	body["conversation"] = "nope"
	if code, _ := postJSON(t, ts, "/api/compact", body); code != http.StatusBadRequest {
		t.Fatalf("compact of a bad ID = %d", code)
	}
	want := []compactCall{
		{Ref: workspace.Ref{ID: "a1b2c3d", Root: "/src/a"}, Conv: watchConv, DryRun: true},
		{Ref: workspace.Ref{ID: "a1b2c3d", Root: "/src/a"}, Conv: watchConv},
		{Ref: workspace.Ref{ID: "a1b2c3d", Root: "/src/a"}, Conv: "17127583999"},
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.compacts) != len(want) {
		t.Fatalf("compacts = %+v", f.compacts)
	}
	for i := range want {
		if f.compacts[i] != want[i] {
			t.Fatalf("compact %d = %+v, want %+v", i, f.compacts[i], want[i])
		}
	}
}

// getJSON gets path and decodes its JSON answer into v.
func getJSON(t *testing.T, ts *httptest.Server, path string, v any) int {
	t.Helper()
	resp, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("%s: answer is not JSON: %v", path, err)
	}
	return resp.StatusCode
}
