package pluginhost_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/filesnap"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// multiHost is a host running a multi-scope plugin on its registered
// checkout, and the workspace field that addresses it.
func multiHost(t *testing.T) (*host, string) {
	t.Helper()
	h := newHost(t)
	h.scope = "multi"
	h.store.SetWorkspaceDir(h.loc.Root, h.loc.ID)
	if err := h.store.Register(t.Context(), ports.Found{ID: h.loc.ID, Root: h.loc.Root}); err != nil {
		t.Fatal(err)
	}
	return h, fmt.Sprintf(`"workspace":{"id":%q,"root":%q}`, h.loc.ID, h.loc.Root)
}

// byID indexes the plugin's answers by request id.
func byID(h *host) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, m := range h.answers() {
		if id, ok := m["id"].(string); ok {
			out[id] = m
		}
	}
	return out
}

// snapEachTurn makes h's snapshots say each turn of conversation id
// changed "f" (turn i: "v<i>" to "v<i+1>"), that "f" is now as the last
// turn left it, and records the restores asked for.
func snapEachTurn(h *host, id conversation.ID, restored *[]filesnap.Restore) {
	h.snaps.SnapshotIndexFunc = func(ctx context.Context, loc workspace.Location, c conversation.ID) (filesnap.Index, error) {
		var idx filesnap.Index
		err := h.store.ScanEvents(ctx, loc, c, func(e conversation.Event) error {
			if e.Type == conversation.EventTypeTurnStart {
				n := len(idx.Records)
				idx.Add(e.ID, "f", "fs_modify_file", e.Timestamp, filesnap.State{Exists: true, Hash: fmt.Sprint("v", n), Size: 1})
				idx.Wrote(e.ID, "f", filesnap.State{Exists: true, Hash: fmt.Sprint("v", n+1), Size: 1})
			}
			return nil
		})
		return idx, err
	}
	h.snaps.FileStatesFunc = func(context.Context, workspace.Location, []string) (map[string]filesnap.State, error) {
		return map[string]filesnap.State{"f": {Exists: true, Hash: "v2", Size: 1}}, nil
	}
	h.snaps.RestoreFilesFunc = func(_ context.Context, _ workspace.Location, _ conversation.ID, rs []filesnap.Restore, _ map[string]bool) error {
		*restored = append(*restored, rs...)
		return nil
	}
}

// TestPluginRewind: a multi-scope plugin rewinds a conversation to turn 1
// through jp conversation rewind's use case: the dry run lists the file
// and restores nothing; the rewind restores it and forks.
func TestPluginRewind(t *testing.T) {
	h, ws := multiHost(t)
	a := h.conv("alpha")
	var restored []filesnap.Restore
	snapEachTurn(h, a, &restored)
	steps := []step{ready}
	for i := range 2 {
		steps = append(steps, send(fmt.Sprintf(`{"type":"query","id":"q%d",%s,"conversation":"%s","content":"turn %d"}`, i, ws, a, i)), until("query_complete|error"))
	}
	steps = append(steps,
		send(fmt.Sprintf(`{"type":"rewind","id":"d",%s,"conversation":"%s","turn":1,"dry_run":true}`, ws, a)), read(1),
		send(fmt.Sprintf(`{"type":"rewind","id":"r",%s,"conversation":"%s","turn":1}`, ws, a)), read(1),
		send(fmt.Sprintf(`{"type":"rewind","id":"n",%s,"conversation":"%s","turn":-1}`, ws, a)), read(1),
		exit0)
	if err := h.run(steps...); err != nil {
		t.Fatal(err)
	}
	got := byID(h)
	d := got["d"]
	if d["type"] != "rewound" || d["dry_run"] != true || fmt.Sprint(d["undone"]) != "[2]" || fmt.Sprint(d["files"]) != "[map[action:restore path:f turns:[2]]]" || d["fork"] != nil {
		t.Fatalf("dry run = %v", d)
	}
	r := got["r"]
	if r["type"] != "rewound" || r["dry_run"] != nil || r["fork"] == nil || r["fork"] == string(a) {
		t.Fatalf("rewind = %v", r)
	}
	if len(restored) != 1 || restored[0].Path != "f" || restored[0].To.Hash != "v1" {
		t.Fatalf("restored %+v, want f back to v1 (and nothing by the dry run)", restored)
	}
	if n := got["n"]; n["type"] != "error" || !strings.Contains(fmt.Sprint(n["message"]), "turn counts from 1") {
		t.Fatalf("a negative turn = %v", n)
	}
}

// TestPluginSingleScopeRefusedRewindTrust: rewind and trust are a
// frontend's requests, for multi-scope plugins only.
func TestPluginSingleScopeRefusedRewindTrust(t *testing.T) {
	h := newHost(t)
	a := h.conv("alpha")
	err := h.run(ready,
		send(fmt.Sprintf(`{"type":"rewind","id":"r","conversation":"%s","turn":0}`, a)), read(1),
		send(`{"type":"trust","id":"t"}`), read(1), exit0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h.answers()); n != 2 {
		t.Fatalf("%d answers, want 2", n)
	}
	for _, m := range h.answers() {
		if m["type"] != "error" || !strings.Contains(fmt.Sprint(m["message"]), `is for plugins with workspace_scope "multi"`) {
			t.Fatalf("answer = %v", m)
		}
	}
}

// TestPluginTrust: a checkout whose configuration attaches a file is not
// trusted: the configuration a delegated turn there starts from (the one
// read_config answers) is without the attachment, the dry run says what is
// held back, and after trust the configuration has it.
func TestPluginTrust(t *testing.T) {
	h, ws := multiHost(t)
	cfg := filepath.Join(h.loc.Root, ".jp", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[conversation]\nattachments = [\"secret.txt\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := h.run(ready,
		send(fmt.Sprintf(`{"type":"trust","id":"d",%s,"dry_run":true}`, ws)), read(1),
		send(fmt.Sprintf(`{"type":"read_config","id":"c0",%s,"path":"conversation"}`, ws)), read(1),
		send(fmt.Sprintf(`{"type":"trust","id":"t",%s}`, ws)), read(1),
		send(fmt.Sprintf(`{"type":"read_config","id":"c1",%s,"path":"conversation"}`, ws)), read(1),
		exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := byID(h)
	if d := got["d"]; d["type"] != "trusted" || d["trusted"] != false || !strings.Contains(fmt.Sprint(d["held"]), "conversation.attachments") {
		t.Fatalf("review = %v", d)
	}
	if tr := got["t"]; tr["type"] != "trusted" || tr["trusted"] != true {
		t.Fatalf("trust = %v", tr)
	}
	if c := fmt.Sprint(got["c0"]); strings.Contains(c, "secret.txt") || !strings.Contains(c, "type:config") {
		t.Fatalf("the untrusted checkout's configuration = %v, want no attachment", c)
	}
	if c := fmt.Sprint(got["c1"]); !strings.Contains(c, "secret.txt") {
		t.Fatalf("the trusted checkout's configuration = %v, want the attachment", c)
	}
}

// TestPluginTrustTurn: a delegated turn in an untrusted checkout runs
// without the checkout's conversation.tools.fs_read.run = "unattended"
// (the call asks for approval); after trust the next turn applies it (the
// call runs without asking).
func TestPluginTrustTurn(t *testing.T) {
	h, ws := multiHost(t)
	a := h.conv("alpha")
	cfg := filepath.Join(h.loc.Root, ".jp", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[conversation.tools.fs_read]\nrun = \"unattended\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	call, text := `{"events":[{"tool_call":{"name":"fs_read","arguments":{"path":"a.txt"}}}]}`, `{"events":[{"text":"read it"}]}`
	h.script = writeScript(t, call, text, call, text)
	err := h.run(ready,
		send(fmt.Sprintf(`{"type":"query","id":"q0",%s,"conversation":"%s","content":"before"}`, ws, a)),
		untilText(`"respond":"tool_approval"`),
		send(`{"type":"respond","call_id":"call_0_0","action":"reject"}`), until("query_complete"),
		send(fmt.Sprintf(`{"type":"trust","id":"t",%s}`, ws)), read(1),
		send(fmt.Sprintf(`{"type":"query","id":"q1",%s,"conversation":"%s","content":"after"}`, ws, a)), until("query_complete"),
		exit0)
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	for _, id := range []string{"q0", "q1"} {
		for _, m := range received(h.answers(), "event", id) {
			if m["respond"] == "tool_approval" {
				asked[id]++
			}
		}
	}
	if asked["q0"] != 1 || asked["q1"] != 0 {
		t.Fatalf("approvals asked %v: want 1 before trust (the checkout's unattended held back), 0 after", asked)
	}
}

// TestPluginTrustOnlyWhatWasShown: a trust that repeats a review's hash
// trusts only that configuration: one changed since the review (another
// key added) is refused and stays untrusted; the new review's hash
// trusts it.
func TestPluginTrustOnlyWhatWasShown(t *testing.T) {
	h, ws := multiHost(t)
	cfg := filepath.Join(h.loc.Root, ".jp", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[conversation]\nattachments = [\"a.txt\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := h.run(ready, send(fmt.Sprintf(`{"type":"trust","id":"d",%s,"dry_run":true}`, ws)), read(1), exit0)
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := byID(h)["d"]["hash"].(string)
	if shown == "" {
		t.Fatalf("the review has no hash: %v", byID(h)["d"])
	}
	// The configuration changes between the question and the answer.
	if err := os.WriteFile(cfg, []byte("[conversation]\nattachments = [\"a.txt\", \"secret.txt\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = h.run(ready,
		send(fmt.Sprintf(`{"type":"trust","id":"t",%s,"hash":%q}`, ws, shown)), read(1),
		send(fmt.Sprintf(`{"type":"trust","id":"d2",%s,"dry_run":true}`, ws)), read(1),
		exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := byID(h)
	if tr := got["t"]; tr["type"] != "error" || !strings.Contains(fmt.Sprint(tr["message"]), "changed since it was shown") {
		t.Fatalf("trust of a changed configuration = %v, want a refusal", tr)
	}
	if d2 := got["d2"]; d2["trusted"] != false || d2["hash"] == shown {
		t.Fatalf("after the refusal: %v, want still untrusted with a new hash", d2)
	}
	err = h.run(ready, send(fmt.Sprintf(`{"type":"trust","id":"t2",%s,"hash":%q}`, ws, got["d2"]["hash"])), read(1), exit0)
	if err != nil {
		t.Fatal(err)
	}
	if tr := byID(h)["t2"]; tr["type"] != "trusted" || tr["trusted"] != true {
		t.Fatalf("trust of what the new review showed = %v", tr)
	}
}
