package pluginhost_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/app/pluginhost"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/ports"
)

var exit0 = send(`{"type":"exit","code":0}`)

func TestPluginInitCarriesWorkspaceAndConfig(t *testing.T) {
	h := newHost(t)
	if err := h.run(ready, exit0); err != nil {
		t.Fatal(err)
	}
	var init plugin.Init
	if err := json.Unmarshal([]byte(h.transcript()[0]), &init); err != nil {
		t.Fatal(err)
	}
	if init.Version != 2 || strings.Join(init.Args, " ") != "--flag arg" || init.LogLevel != plugin.LogLevelTrace ||
		init.OutputFormat != "text" || string(init.Options) != `{"retention":3}` {
		t.Fatalf("init = %+v", init)
	}
	if init.Workspace == nil || init.Workspace.Root != h.loc.Root || init.Workspace.ID != string(h.loc.ID) ||
		init.Workspace.Storage != h.loc.Root+"/.jp" || init.Paths.UserWorkspace == "" {
		t.Fatalf("init workspace = %+v, paths = %+v", init.Workspace, init.Paths)
	}
	var cfg map[string]any
	if err := json.Unmarshal(init.Config, &cfg); err != nil || cfg["plugins"] == nil {
		t.Fatalf("init config = %s", init.Config)
	}
}

// TestPluginRequests runs every data and mutation request once and
// checks its answer and its effect.
func TestPluginRequests(t *testing.T) {
	h := newHost(t)
	a, b := h.conv("alpha"), h.conv("beta")
	req := func(format string, args ...any) []step {
		return []step{send(fmt.Sprintf(format, args...)), read(1)}
	}
	var steps []step
	steps = append(steps, ready)
	for _, r := range [][]step{
		req(`{"type":"list_conversations","id":"1"}`),
		req(`{"type":"read_config","id":"2","path":"plugins.shutdown_timeout_secs"}`),
		req(`{"type":"read_config","path":"no.such.key"}`),
		req(`{"type":"set_title","conversation":"%s","title":"renamed"}`, a),
		req(`{"type":"archive","id":"3","conversation":"%s"}`, b),
		req(`{"type":"unarchive","conversation":"%s"}`, b),
		req(`{"type":"archive","conversation":"%s"}`, a),
		req(`{"type":"create_conversation","title":"made by plugin","local":true}`),
		req(`{"type":"read_events","conversation":"%s"}`, a),
		req(`{"type":"read_events","conversation":"99"}`),
		req(`{"type":"read_draft","conversation":"%s"}`, a),
		req(`{"type":"query","conversation":"%s","content":"hi"}`, a),
		req(`{"type":"list_workspaces","id":"w"}`),
	} {
		steps = append(steps, r...)
	}
	steps = append(steps, exit0)
	if err := h.run(steps...); err != nil {
		t.Fatal(err)
	}
	got := h.answers()
	want := []string{
		`conversations 1`, `config 2`, `error`, `title_set`, `archived 3`, `unarchived`, `archived`, `created`,
		`events`, `error`, `draft`, `error`, `workspaces w`,
	}
	if len(got) != len(want) {
		t.Fatalf("answers = %v", got)
	}
	for i, w := range want {
		typ, id, _ := strings.Cut(w, " ")
		if got[i]["type"] != typ || (id != "" && got[i]["id"] != id) || (id == "" && got[i]["id"] != nil) {
			t.Errorf("answer %d = %v, want %s", i, got[i], w)
		}
	}
	if got[1]["data"] != float64(5) || got[1]["path"] != "plugins.shutdown_timeout_secs" {
		t.Errorf("read_config = %v", got[1])
	}
	if !strings.Contains(got[2]["message"].(string), "no.such.key") || got[2]["request"] != "read_config" {
		t.Errorf("unknown path = %v", got[2])
	}
	if !strings.Contains(got[9]["message"].(string), "conversation 99 not found") {
		t.Errorf("unknown conversation = %v", got[9])
	}
	if !strings.Contains(got[11]["message"].(string), `query needs an "id"`) || got[11]["request"] != "query" {
		t.Errorf("query = %v", got[11])
	}
	// Effects.
	sa, _ := h.store.Get(t.Context(), h.loc, a)
	sb, _ := h.store.Get(t.Context(), h.loc, b)
	if sa.Metadata.Title != "renamed" || !sa.Metadata.Archived() || sb.Metadata.Archived() {
		t.Errorf("a = %+v, b = %+v", sa.Metadata, sb.Metadata)
	}
	created := got[7]["conversation"].(string)
	sc, err := h.store.Get(t.Context(), h.loc, conversation.ID(created))
	if err != nil || sc.Metadata.Title != "made by plugin" || !sc.Local {
		t.Errorf("created = %+v, %v", sc, err)
	}
	list := got[0]["data"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["title"] != "beta" {
		t.Errorf("list = %v", list)
	}
}

// TestPluginBadInput: every malformed line gets an error answer and the
// loop goes on.
func TestPluginBadInput(t *testing.T) {
	for _, tt := range []struct {
		name, line, request, msg string
	}{
		{"garbage", "\x00\x01\x02garbage\x7f", "", "not a JSON object"},
		{"not JSON", "hello, this is not JSON", "", "not a JSON object"},
		{"no type", `{"id":"7"}`, "", `no "type"`},
		{"unknown type", `{"type":"fly","id":"8"}`, "fly", `unknown message type "fly"`},
		{"missing field", `{"type":"read_events","id":"9"}`, "read_events", "conversation is required"},
		{"wrong field type", `{"type":"read_events","conversation":17}`, "read_events", "conversation must be a string"},
		{"path characters", `{"type":"read_draft","conversation":"../../../etc/passwd"}`, "read_draft", "invalid conversation ID"},
		{"select without options", `{"type":"prompt","kind":"select","message":"Pick"}`, "prompt", "options of a select must be a non-empty array"},
		{"bad channel", `{"type":"print","text":"x","channel":"stdout"}`, "print", `unknown channel "stdout"`},
		{"workspace from a single-scope plugin", `{"type":"list_conversations","workspace":{"id":"a1b2c3d"}}`, "list_conversations", "single-scope"},
		{"write_draft without text", `{"type":"write_draft","conversation":"1"}`, "write_draft", "text is required"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t)
			err := h.run(ready, send(tt.line), read(1), send(`{"type":"list_conversations"}`), read(1), exit0)
			if err != nil {
				t.Fatal(err)
			}
			got := h.answers()
			if len(got) != 2 || got[0]["type"] != "error" || got[1]["type"] != "conversations" {
				t.Fatalf("answers = %v", got)
			}
			if req, _ := got[0]["request"].(string); req != tt.request || !strings.Contains(got[0]["message"].(string), tt.msg) {
				t.Fatalf("error = %v, want request %q and a message containing %q", got[0], tt.request, tt.msg)
			}
			if strings.HasPrefix(tt.line, `{"id":"`) && got[0]["id"] != "7" || strings.Contains(tt.line, `"type":"fly","id":"8"`) && got[0]["id"] != "8" {
				t.Fatalf("the error must echo the id: %v", got[0])
			}
		})
	}
}

func TestPluginRequestBeforeReady(t *testing.T) {
	h := newHost(t)
	if err := h.run(send(`{"type":"list_conversations"}`), read(1), ready, exit0); err != nil {
		t.Fatal(err)
	}
	if got := h.answers(); len(got) != 1 || !strings.Contains(got[0]["message"].(string), "send ready") {
		t.Fatalf("answers = %v", got)
	}
}

func TestPluginThatNeverSendsReady(t *testing.T) {
	h := newHost(t)
	in := h.input(step{Block: true})
	in.ReadyTimeout = 50 * time.Millisecond
	err := h.host.Run(t.Context(), in)
	var ue *app.UserError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "plugin t") || !strings.Contains(err.Error(), "did not answer init with ready within 50ms") {
		t.Fatalf("Run = %v", err)
	}
}

func TestPluginExitsMidRequest(t *testing.T) {
	h := newHost(t)
	err := h.run(ready, send(`{"type":"list_conversations"}`), exitWith(3))
	var ue *app.UserError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "plugin t (") || !strings.Contains(err.Error(), "ended without sending exit (exit status 3)") {
		t.Fatalf("Run = %v", err)
	}
}

func TestPluginExitCodeAndReason(t *testing.T) {
	h := newHost(t)
	err := h.run(ready, send(`{"type":"exit","code":4,"reason":"nothing to do: pass --all"}`))
	var pe *pluginhost.ExitError
	if !errors.As(err, &pe) || pe.Code != 4 || pe.Error() != "nothing to do: pass --all" {
		t.Fatalf("Run = %v", err)
	}
}

func TestPluginFloodsPrint(t *testing.T) {
	h := newHost(t)
	const n = 20000
	if err := h.run(ready, step{Flood: n}, exit0); err != nil {
		t.Fatal(err)
	}
	got := h.printer.all()
	if len(got) != n || got[0] != "content:line 0\n" || got[n-1] != fmt.Sprintf("content:line %d\n", n-1) {
		t.Fatalf("printed %d lines, first %q", len(got), got[:min(len(got), 1)])
	}
	for i := 1; i < n; i += 997 {
		if got[i] != fmt.Sprintf("content:line %d\n", i) {
			t.Fatalf("line %d = %q: out of order", i, got[i])
		}
	}
}

// TestPluginPrintFlushesWholeLines: a plain print that ends a line is
// written out at once (a server plugin's URL must not wait in a buffer
// for jp to exit when stdout is a pipe); a partial line is not.
func TestPluginPrintFlushesWholeLines(t *testing.T) {
	h := newHost(t)
	err := h.run(ready, send(`{"type":"print","text":"a\n"}`), send(`{"type":"print","text":"b"}`),
		send(`{"type":"print","text":"c\n"}`), exit0)
	if err != nil {
		t.Fatal(err)
	}
	h.printer.mu.Lock()
	defer h.printer.mu.Unlock()
	at := map[int]bool{}
	for _, n := range h.printer.flushedAt {
		at[n] = true
	}
	if !at[1] || at[2] || !at[3] {
		t.Errorf("flushed after writes %v, want after 1 and 3, not 2 (writes %q)", h.printer.flushedAt, h.printer.writes)
	}
}

func TestPluginLineOver16MiB(t *testing.T) {
	h := newHost(t)
	err := h.run(ready, step{Long: plugin.MaxLine + 1}, step{Block: true})
	if err == nil || !strings.Contains(err.Error(), "plugin t wrote a line longer than 16 MiB") {
		t.Fatalf("Run = %v", err)
	}
}

func TestPluginLocksDieWithThePlugin(t *testing.T) {
	for _, tt := range []struct {
		name string
		end  step
	}{
		{"killed", step{Kill: true}},
		{"crashed", exitWith(2)},
		{"exited", exit0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t)
			id := h.conv("locked")
			_ = h.run(ready, send(`{"type":"lock","conversation":"`+string(id)+`"}`), read(1), tt.end)
			if got := h.answers(); len(got) != 1 || got[0]["type"] != "locked" {
				t.Fatalf("answers = %v", got)
			}
			release, err := h.store.Lock(t.Context(), h.loc, id, 0)
			if err != nil {
				t.Fatalf("the plugin's lock outlived it: %v", err)
			}
			_ = release()
		})
	}
}

func TestPluginLockUnlockAndChangesUnderItsLock(t *testing.T) {
	h := newHost(t)
	id := string(h.conv("x"))
	err := h.run(ready,
		send(`{"type":"lock","conversation":"`+id+`"}`), read(1),
		send(`{"type":"lock","conversation":"`+id+`"}`), read(1), // again: still locked
		send(`{"type":"set_title","conversation":"`+id+`","title":"under my lock"}`), read(1),
		send(`{"type":"unlock","conversation":"`+id+`"}`), read(1),
		send(`{"type":"unlock","conversation":"`+id+`"}`), read(1),
		exit0)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, a := range h.answers() {
		types = append(types, a["type"].(string))
	}
	if strings.Join(types, " ") != "locked locked title_set unlocked error" {
		t.Fatalf("answers = %v", h.answers())
	}
	// Held by another process: a clear error after the wait.
	release, err := h.store.Lock(t.Context(), h.loc, conversation.ID(id), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	h2 := newHostSharing(t, h)
	if err := h2.run(ready, send(`{"type":"archive","conversation":"`+id+`"}`), read(1), exit0); err != nil {
		t.Fatal(err)
	}
	if got := h2.answers(); got[0]["type"] != "error" || !strings.Contains(got[0]["message"].(string), "locked") {
		t.Fatalf("answers = %v", got)
	}
}

// newHostSharing is a second host over h's store, with its own
// transcript.
func newHostSharing(t *testing.T, h *host) *host {
	h2 := newHost(t)
	shared := *h
	shared.out, shared.printer = h2.out, h2.printer
	return &shared
}

func TestPluginDraftKeepsMetaAndChecksRevision(t *testing.T) {
	h := newHost(t)
	id := h.conv("d")
	doc := draft.New("old text", `assistant.model.id = "demo/echo"`, "excerpt").Render()
	rev, err := h.store.WriteDraft(t.Context(), h.loc, id, doc, "")
	if err != nil {
		t.Fatal(err)
	}
	c := string(id)
	err = h.run(ready,
		send(`{"type":"read_draft","conversation":"`+c+`"}`), read(1),
		send(`{"type":"write_draft","conversation":"`+c+`","text":"new text","revision":"`+rev+`"}`), read(1),
		send(`{"type":"write_draft","conversation":"`+c+`","text":"stale","revision":"`+rev+`"}`), read(1),
		exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := h.answers()
	if got[0]["text"] != "old text" || got[0]["revision"] != rev || got[1]["type"] != "draft_written" || got[2]["type"] != "error" {
		t.Fatalf("answers = %v", got)
	}
	if !strings.Contains(got[2]["message"].(string), "no longer at revision") {
		t.Fatalf("stale write = %v", got[2])
	}
	d, err := h.store.ReadDraft(t.Context(), h.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	if p := draft.Parse(d.Text); p.Query() != "new text" || p.Meta() != draft.Parse(doc).Meta() || d.Revision != got[1]["revision"] {
		t.Fatalf("draft = %q", d.Text)
	}
}

func TestPluginConcurrentRequestsThroughTheSDK(t *testing.T) {
	h := newHost(t)
	h.conv("a")
	h.conv("b")
	h.conv("c")
	if err := h.run(sdk("concurrent")); err != nil {
		t.Fatal(err)
	}
	if got := h.transcript(); len(got) != 1 || got[0] != "errors: []" {
		t.Fatalf("plugin saw %v", got)
	}
}

func TestPluginTracesMessages(t *testing.T) {
	h := newHost(t)
	if err := h.run(ready, send(`{"type":"log","level":"info","message":"hello","fields":{"k":1}}`), exit0); err != nil {
		t.Fatal(err)
	}
	log := h.log.String()
	for _, want := range []string{`dir=recv line="{\"type\":\"ready\"}"`, `dir=send line="{\"type\":\"init\"`, `msg=hello plugin=t k=1`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
}

var _ = ports.ErrNotFound
