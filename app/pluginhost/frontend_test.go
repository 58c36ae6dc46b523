package pluginhost_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

// TestPluginContextMeterAndCompact: a multi-scope plugin reads a
// conversation's context meter and compacts it by the configured rules
// (here the default: keep the first and last turn, strip the others'
// reasoning and tool calls), each addressed to one checkout; a dry run
// writes nothing.
func TestPluginContextMeterAndCompact(t *testing.T) {
	h := newHost(t)
	h.scope = "multi"
	a := h.conv("alpha")
	// The checkout is a live one of the workspace (a registered checkout
	// holding its .jp/.id), which a multi-scope request can address.
	h.store.SetWorkspaceDir(h.loc.Root, h.loc.ID)
	if err := h.store.Register(t.Context(), ports.Found{ID: h.loc.ID, Root: h.loc.Root}); err != nil {
		t.Fatal(err)
	}
	ws := fmt.Sprintf(`"workspace":{"id":%q,"root":%q}`, h.loc.ID, h.loc.Root)
	steps := []step{ready}
	for i := range 3 {
		steps = append(steps, send(fmt.Sprintf(`{"type":"query","id":"q%d",%s,"conversation":"%s","content":"turn %d"}`, i, ws, a, i)), until("query_complete|error"))
	}
	steps = append(steps,
		send(fmt.Sprintf(`{"type":"context_meter","id":"m",%s,"conversation":"%s"}`, ws, a)), read(1),
		send(fmt.Sprintf(`{"type":"compact","id":"d",%s,"conversation":"%s","dry_run":true}`, ws, a)), read(1),
		send(fmt.Sprintf(`{"type":"compact","id":"c",%s,"conversation":"%s"}`, ws, a)), read(1),
		send(fmt.Sprintf(`{"type":"context_meter","id":"n","conversation":"%s"}`, a)), read(1),
		exit0)
	if err := h.run(steps...); err != nil {
		t.Fatal(err)
	}
	got := h.answers()
	byID := map[string]map[string]any{}
	for _, m := range got {
		if id, ok := m["id"].(string); ok {
			byID[id] = m
		}
	}
	if m := byID["m"]; m["type"] != "meter" || m["conversation"] != string(a) || m["tokens"].(float64) <= 0 {
		t.Fatalf("meter = %v", m)
	}
	if d := byID["d"]; d["type"] != "compacted" || d["dry_run"] != true || d["turns"] != float64(3) || d["added"] != float64(1) {
		t.Fatalf("dry run = %v", d)
	}
	if c := byID["c"]; c["type"] != "compacted" || c["dry_run"] != nil || c["added"] != float64(1) {
		t.Fatalf("compact = %v", c)
	}
	if n := byID["n"]; n["type"] != "error" || !strings.Contains(fmt.Sprint(n["message"]), `add "workspace"`) {
		t.Fatalf("an unaddressed request = %v", n)
	}
	evs, err := h.store.Events(t.Context(), h.loc, a)
	if err != nil {
		t.Fatal(err)
	}
	compactions := 0
	for _, ev := range evs {
		if ev.Compaction != nil {
			compactions++
		}
	}
	if compactions != 1 {
		t.Fatalf("%d compaction events stored, want 1 (the dry run writes none)", compactions)
	}
}

// TestPluginSingleScopeRefusedCompact: the frontend's requests (meter,
// compact, history) are for multi-scope plugins only.
func TestPluginSingleScopeRefusedCompact(t *testing.T) {
	h := newHost(t)
	a := h.conv("alpha")
	err := h.run(ready,
		send(fmt.Sprintf(`{"type":"context_meter","id":"m","conversation":"%s"}`, a)), read(1),
		send(fmt.Sprintf(`{"type":"compact","id":"c","conversation":"%s"}`, a)), read(1),
		send(`{"type":"read_history","id":"h"}`), read(1), exit0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h.answers()); n != 3 {
		t.Fatalf("%d answers, want 3", n)
	}
	for _, m := range h.answers() {
		if m["type"] != "error" || !strings.Contains(fmt.Sprint(m["message"]), `is for plugins with workspace_scope "multi"`) {
			t.Fatalf("answer = %v", m)
		}
	}
}

// TestPluginMessageHistory: a multi-scope plugin reads the session's
// message history (what Up recalls) and adds the messages it sent; an
// empty message is refused.
func TestPluginMessageHistory(t *testing.T) {
	h := newHost(t)
	h.scope = "multi"
	if err := h.history.Add(t.Context(), "from the terminal"); err != nil {
		t.Fatal(err)
	}
	err := h.run(ready,
		send(`{"type":"add_history","id":"a","text":"from the page"}`), read(1),
		send(`{"type":"add_history","id":"e","text":""}`), read(1),
		send(`{"type":"read_history","id":"r"}`), read(1), exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := h.transcript()[1:]
	want := []string{
		`{"type":"history_added","id":"a"}`,
		`{"type":"error","id":"e","request":"add_history","message":"`,
		`{"type":"history","id":"r","data":["from the terminal","from the page"]}`,
	}
	if len(got) != len(want) {
		t.Fatalf("answers = %q", got)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("answer %d = %s\nwant prefix %s", i, got[i], w)
		}
	}
	if msgs, _ := h.history.Recent(t.Context()); len(msgs) != 2 || msgs[1] != "from the page" {
		t.Fatalf("history file = %q", msgs)
	}
}
