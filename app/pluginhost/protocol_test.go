package pluginhost_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestPluginV1DelegatedTurn: a delegated turn is not a multi-workspace
// feature, so a plugin that declares protocol version 1 runs one.
func TestPluginV1DelegatedTurn(t *testing.T) {
	h := newHost(t)
	h.protocol = 1
	a := h.conv("alpha")
	err := h.run(ready,
		send(fmt.Sprintf(`{"type":"query","id":"q1","conversation":"%s","content":"hello there"}`, a)),
		until("query_complete|error"), exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := h.answers()
	if got[0]["type"] != "query_started" {
		t.Fatalf("first answer = %v, want query_started", got[0])
	}
	if last := got[len(got)-1]; last["type"] != "query_complete" || last["outcome"] != "completed" {
		t.Fatalf("last answer = %v", last)
	}
}

// TestPluginV1RefusedMultiScopeRequests: what only a multi-scope plugin
// can use (list_workspaces, a workspace field) stays refused to a
// protocol-1 plugin, in one line saying what to do.
func TestPluginV1RefusedMultiScopeRequests(t *testing.T) {
	h := newHost(t)
	h.protocol = 1
	err := h.run(ready,
		send(`{"type":"list_workspaces","id":"w"}`), read(1),
		send(`{"type":"list_conversations","id":"l","workspace":{"id":"x"}}`), read(1), exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := h.transcript()[1:]
	want := []string{
		`{"type":"error","id":"w","request":"list_workspaces","message":"list_workspaces needs plugin protocol version 2, and this plugin speaks version 1`,
		`{"type":"error","id":"l","request":"list_conversations","message":"workspace is only for plugins with workspace_scope \"multi\" (protocol version 2), and this plugin speaks version 1`,
	}
	if len(got) != len(want) {
		t.Fatalf("answers = %v", got)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("answer %d = %s\nwant prefix %s", i, got[i], w)
		}
	}
}
