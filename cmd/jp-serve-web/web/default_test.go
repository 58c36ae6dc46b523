package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// The default workspace (what jp stores when it is used outside any
// workspace) has no checkout: the workspaces page links its
// conversations instead of calling it gone, and they open and continue,
// addressed by the workspace ID alone.
func TestDefaultWorkspaceOpens(t *testing.T) {
	f := fixture()
	def := string(workspace.DefaultID)
	f.workspaces = append(f.workspaces, plugin.WorkspaceEntry{ID: def, Slug: "default", Default: true, Roots: []plugin.WorkspaceRoot{}})
	f.convs[""] = []plugin.ConversationSummary{{ID: "17127583930", Title: "One-off question", LastActivatedAt: t0, EventsCount: 2}}
	f.events["17127583930"] = plugin.Events{Data: asStored(storedEvents())}
	st := newFakeStream()
	f.queryFn = func(workspace.Ref, plugin.Query) (Stream, error) { return st, nil }
	_, ts := newServer(t, f)

	code, page := get(t, ts, "/")
	card := section(page, `id="ws-`+def+`"`)
	if code != http.StatusOK || !strings.Contains(card, `href="/w/`+def+`"`) || strings.Contains(card, "No live checkout") || strings.Contains(page, `dead" id="ws-`+def) {
		t.Fatalf("GET / = %d; the default workspace's card:\n%s", code, card)
	}
	if old := section(page, `id="ws-x9y8z7w"`); !strings.Contains(old, "No live checkout") {
		t.Errorf("a workspace whose checkouts are gone is no longer said to be:\n%s", old)
	}

	code, page = get(t, ts, "/w/"+def)
	if code != http.StatusOK || !strings.Contains(page, "One-off question") || !strings.Contains(page, `href="/w/`+def+`/c/17127583930"`) ||
		!strings.Contains(page, `action="/w/`+def+`/new"`) {
		t.Fatalf("GET /w/%s = %d\n%s", def, code, page)
	}
	if code, _ := get(t, ts, "/w/"+def+"?root=%2Fsrc%2Fa"); code != http.StatusNotFound {
		t.Errorf("the default workspace with a root = %d, want 404", code)
	}

	code, page = get(t, ts, "/w/"+def+"/c/17127583930")
	if code != http.StatusOK {
		t.Fatalf("GET the conversation = %d\n%s", code, page)
	}
	if s := pageStateOf(t, page); !s.Default || s.Viewed != "" || s.Workspace != def {
		t.Fatalf("page state = %+v", s)
	}

	// It continues there: the turn and the draft are addressed with no root.
	code, ans := postJSON(t, ts, "/api/query", map[string]any{"workspace": def, "root": "", "conversation": "17127583930", "content": "more"})
	if code != http.StatusOK || ans["turn"] == "" {
		t.Fatalf("query = %d %v", code, ans)
	}
	f.mu.Lock()
	q := f.queries[0]
	f.mu.Unlock()
	if q.Ref != (workspace.Ref{ID: def}) || q.Query.Content != "more" {
		t.Fatalf("host got %+v", q)
	}
	st.end(plugin.QueryComplete{Outcome: "completed"})
	if code, ans := putDraft(t, ts, map[string]any{"workspace": def, "root": "", "conversation": "17127583930", "text": "next", "revision": ""}); code != http.StatusOK {
		t.Fatalf("draft = %d %v", code, ans)
	}
	if w := f.writes(); len(w) != 1 || w[0].Ref != (workspace.Ref{ID: def}) {
		t.Fatalf("draft writes = %+v", w)
	}
	// Another workspace still needs its root.
	if code, _ := postJSON(t, ts, "/api/query", map[string]any{"workspace": "a1b2c3d", "root": "", "conversation": "17127583930", "content": "x"}); code != http.StatusBadRequest {
		t.Errorf("a query without a root in a workspace with checkouts = %d, want 400", code)
	}
}
