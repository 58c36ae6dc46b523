package pluginhost_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

// received returns the answers of type typ (and id, when not "").
func received(got []map[string]any, typ, id string) []map[string]any {
	var out []map[string]any
	for _, m := range got {
		if m["type"] == typ && (id == "" || m["id"] == id) {
			out = append(out, m)
		}
	}
	return out
}

// pushed returns the data of the event pushes of query id, in order.
func pushed(got []map[string]any, id string) []map[string]any {
	var out []map[string]any
	for _, m := range received(got, "event", id) {
		out = append(out, m["data"].(map[string]any))
	}
	return out
}

// TestPluginDelegatedTurn runs a delegated turn (docs/plugins.md) on the demo
// model: query_started, the conversation events and the streamed deltas
// as pushes tagged with the query's id, then query_complete; the turn is
// stored like a jp query turn, authored by the plugin, and records its
// checkout as the last root.
func TestPluginDelegatedTurn(t *testing.T) {
	h := newHost(t)
	a := h.conv("alpha")
	err := h.run(ready,
		send(fmt.Sprintf(`{"type":"query","id":"q1","conversation":"%s","content":"hello there"}`, a)),
		until("query_complete"), exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := h.answers()
	if got[0]["type"] != "query_started" || got[0]["id"] != "q1" || got[0]["conversation"] != string(a) {
		t.Fatalf("first answer = %v", got[0])
	}
	last := got[len(got)-1]
	if last["type"] != "query_complete" || last["id"] != "q1" || last["outcome"] != "completed" {
		t.Fatalf("last answer = %v", last)
	}
	var types []string
	var text strings.Builder
	for _, d := range pushed(got, "q1") {
		if d["type"] == "chat_response_delta" {
			text.WriteString(d["text"].(string))
			continue
		}
		types = append(types, d["type"].(string))
	}
	if strings.Join(types, ",") != "turn_start,chat_request,chat_response,turn_end" {
		t.Errorf("pushed events = %v", types)
	}
	if text.String() != "You said: hello there" {
		t.Errorf("deltas = %q", text.String())
	}
	evs, err := h.store.Events(t.Context(), h.loc, a)
	if err != nil || len(evs) != 4 {
		t.Fatalf("stored = %v, %v", evs, err)
	}
	if evs[0].Root != h.loc.Root || evs[1].Author != "plugin:t" || evs[1].Content != "hello there" || evs[2].Message != "You said: hello there" {
		t.Errorf("stored = %+v", evs)
	}
	sum, _ := h.store.Get(t.Context(), h.loc, a)
	if sum.LastRoot == nil || sum.LastRoot.Path != h.loc.Root {
		t.Errorf("last root = %+v", sum.LastRoot)
	}
}

// TestPluginDelegatedTurnLastRoot pins the expected_last_root rule on a
// single-scope host: a record for a checkout that is gone refuses the
// turn (the error carries the record, nothing is stored) until the query
// confirms that record; then the turn runs and the record names this
// checkout.
func TestPluginDelegatedTurnLastRoot(t *testing.T) {
	h := newHost(t)
	a := h.conv("alpha")
	gone := filepath.Join(t.TempDir(), "deleted-worktree")
	when := time.Date(2026, 9, 26, 9, 14, 0, 0, time.UTC)
	err := h.store.UpdateLocalMetadata(t.Context(), h.loc, a, func(m *conversation.LocalMetadata) error {
		m.LastRoot = &conversation.LastRoot{Path: gone, LastUsed: when}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	record := fmt.Sprintf(`{"path":%q,"last_used":"2026-09-26T09:14:00Z","live":true}`, gone) // live is ignored
	err = h.run(ready,
		send(fmt.Sprintf(`{"type":"query","id":"q1","conversation":"%s","content":"one"}`, a)), read(1),
		send(fmt.Sprintf(`{"type":"query","id":"q2","conversation":"%s","content":"two","expected_last_root":{"path":%q,"last_used":"2026-09-26T09:14:01Z"}}`, a, gone)), read(1),
		send(fmt.Sprintf(`{"type":"query","id":"q3","conversation":"%s","content":"three","expected_last_root":%s}`, a, record)),
		until("query_complete"), exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := h.answers()
	refused := got[0]
	if refused["type"] != "error" || refused["id"] != "q1" || refused["request"] != "query" ||
		!strings.Contains(refused["message"].(string), "a worktree that no longer exists") {
		t.Fatalf("q1 = %v", refused)
	}
	lr, _ := refused["last_root"].(map[string]any)
	if lr["path"] != gone || lr["live"] != false || lr["last_used"] != "2026-09-26T09:14:00Z" {
		t.Errorf("q1 last_root = %v", refused["last_root"])
	}
	if got[1]["type"] != "error" || got[1]["id"] != "q2" || !strings.Contains(got[1]["message"].(string), "moved since it was read") {
		t.Errorf("q2 (stale record) = %v", got[1])
	}
	if c := received(got, "query_complete", "q3"); len(c) != 1 || c[0]["outcome"] != "completed" {
		t.Fatalf("q3 = %v", got[2:])
	}
	evs, _ := h.store.Events(t.Context(), h.loc, a)
	if len(evs) != 4 || evs[1].Content != "three" {
		t.Errorf("stored = %+v (only the confirmed turn may run)", evs)
	}
	sum, _ := h.store.Get(t.Context(), h.loc, a)
	if sum.LastRoot == nil || sum.LastRoot.Path != h.loc.Root {
		t.Errorf("last root = %+v, want %s", sum.LastRoot, h.loc.Root)
	}
}

// writeScript writes a demo model script.
func writeScript(t *testing.T, responses ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script.json")
	body := `{"responses":[` + strings.Join(responses, ",") + `]}`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPluginDelegatedToolApproval: a tool call that needs permission is
// pushed with respond "tool_approval" and waits for respond; approve runs
// it, reject answers it with its cancellation response; a respond for a
// call nobody waits for is an error.
func TestPluginDelegatedToolApproval(t *testing.T) {
	for _, tt := range []struct {
		action, want string
		isError      bool
	}{
		{"approve", `contents of {"path":"a.txt"}`, false},
		{"reject", "cancelled", true},
	} {
		t.Run(tt.action, func(t *testing.T) {
			h := newHost(t)
			h.script = writeScript(t,
				`{"events":[{"tool_call":{"name":"fs_read","arguments":{"path":"a.txt"}}}]}`,
				`{"events":[{"text":"read it"}]}`)
			a := h.conv("alpha")
			err := h.run(ready,
				send(fmt.Sprintf(`{"type":"query","id":"q","conversation":"%s","content":"read a.txt"}`, a)),
				untilText(`"respond":"tool_approval"`),
				send(`{"type":"respond","id":"r0","call_id":"call_9_9","action":"approve"}`), read(1),
				send(fmt.Sprintf(`{"type":"respond","call_id":"call_0_0","action":"%s"}`, tt.action)),
				until("query_complete"), exit0)
			if err != nil {
				t.Fatal(err)
			}
			got := h.answers()
			var approval map[string]any
			for _, m := range received(got, "event", "q") {
				if m["respond"] == "tool_approval" {
					approval = m["data"].(map[string]any)
				}
			}
			if approval == nil || approval["type"] != "tool_approval" || approval["call_id"] != "call_0_0" || approval["name"] != "fs_read" {
				t.Fatalf("approval push = %v", approval)
			}
			if args, _ := json.Marshal(approval["arguments"]); string(args) != `{"path":"a.txt"}` {
				t.Errorf("approval arguments = %s", args)
			}
			if e := received(got, "error", "r0"); len(e) != 1 || !strings.Contains(e[0]["message"].(string), "no tool approval is waiting for call_id call_9_9") {
				t.Errorf("respond to an unknown call = %v", e)
			}
			if c := received(got, "query_complete", "q"); len(c) != 1 || c[0]["outcome"] != "completed" {
				t.Fatalf("complete = %v", c)
			}
			var result map[string]any
			for _, d := range pushed(got, "q") {
				if d["type"] == "tool_call_response" {
					result = d
				}
			}
			if result == nil || !strings.Contains(result["content"].(string), tt.want) || result["is_error"] != tt.isError {
				t.Errorf("tool result = %v, want %q", result, tt.want)
			}
		})
	}
}

// TestPluginDelegatedInterrupt: interrupt stops a running delegated turn
// as [s] would (what it streamed is kept, turn_end stopped, query_complete
// stopped); a second query on the same conversation meanwhile is refused,
// and interrupting when nothing runs is an error.
func TestPluginDelegatedInterrupt(t *testing.T) {
	h, a := talkingHost(t)
	err := h.run(ready,
		send(fmt.Sprintf(`{"type":"query","id":"q","conversation":"%s","content":"talk"}`, a)),
		untilText(`"chat_response_delta"`),
		send(fmt.Sprintf(`{"type":"query","id":"q2","conversation":"%s","content":"again"}`, a)),
		untilText(`"id":"q2"`),
		send(fmt.Sprintf(`{"type":"interrupt","id":"i","conversation":"%s"}`, a)),
		until("query_complete"),
		send(fmt.Sprintf(`{"type":"interrupt","id":"i2","conversation":"%s"}`, a)), read(1),
		exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := h.answers()
	if e := received(got, "error", "q2"); len(e) != 1 || !strings.Contains(e[0]["message"].(string), "already running") {
		t.Errorf("second query = %v", e)
	}
	if len(received(got, "interrupted", "i")) != 1 {
		t.Errorf("no interrupted answer: %v", got)
	}
	if c := received(got, "query_complete", "q"); len(c) != 1 || c[0]["outcome"] != "stopped" {
		t.Fatalf("complete = %v", c)
	}
	if e := received(got, "error", "i2"); len(e) != 1 || !strings.Contains(e[0]["message"].(string), "no delegated turn is running") {
		t.Errorf("interrupt with nothing running = %v\n%v", e, got[len(got)-3:])
	}
	evs, _ := h.store.Events(t.Context(), h.loc, a)
	lastEv := evs[len(evs)-1]
	if lastEv.Type != conversation.EventTypeTurnEnd || lastEv.Outcome != conversation.OutcomeStopped {
		t.Errorf("last stored event = %+v", lastEv)
	}
	var kept bool
	for _, e := range evs {
		kept = kept || (e.Type == conversation.EventTypeChatResponse && strings.HasPrefix(e.Message, "word "))
	}
	if !kept || len(evs) > 6 {
		t.Errorf("stored = %+v (the streamed text is kept, the turn stopped early)", evs)
	}
}

// TestPluginDelegatedTurnBusy: while a delegated turn holds a
// conversation's lock, the plugin's own requests that need that lock are
// refused at once with a clear error, not after a lock wait blaming
// another process.
func TestPluginDelegatedTurnBusy(t *testing.T) {
	h, a := talkingHost(t)
	err := h.run(ready,
		send(fmt.Sprintf(`{"type":"query","id":"q","conversation":"%s","content":"talk"}`, a)),
		untilText(`"chat_response_delta"`),
		send(fmt.Sprintf(`{"type":"set_title","id":"t","conversation":"%s","title":"renamed"}`, a)), untilText(`"id":"t"`),
		send(fmt.Sprintf(`{"type":"lock","id":"l","conversation":"%s"}`, a)), untilText(`"id":"l"`),
		send(fmt.Sprintf(`{"type":"interrupt","id":"i","conversation":"%s"}`, a)),
		until("query_complete"), exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := h.answers()
	for _, id := range []string{"t", "l"} {
		if e := received(got, "error", id); len(e) != 1 || !strings.Contains(e[0]["message"].(string), "busy with this plugin's delegated turn q") {
			t.Errorf("%s = %v", id, e)
		}
	}
	if sum, _ := h.store.Get(t.Context(), h.loc, a); sum.Metadata.Title != "alpha" {
		t.Errorf("title = %q", sum.Metadata.Title)
	}
}

// talkingHost is a host whose demo model talks for seconds (400 words, 20
// ms apart), and a conversation to talk in.
func talkingHost(t *testing.T) (*host, conversation.ID) {
	t.Helper()
	h := newHost(t)
	h.script = writeScript(t, `{"events":[{"text":"word ","repeat":400,"sleep_ms":20}]}`)
	return h, h.conv("alpha")
}

// TestPluginDiesDuringDelegatedTurn: a plugin that dies while its turn
// streams does not leave the turn running or the conversation locked: the
// turn is stopped and recorded as such, and the lock is free.
func TestPluginDiesDuringDelegatedTurn(t *testing.T) {
	h, a := talkingHost(t)
	err := h.run(ready,
		send(fmt.Sprintf(`{"type":"query","id":"q","conversation":"%s","content":"talk"}`, a)),
		untilText(`"chat_response_delta"`),
		step{Kill: true})
	if err == nil || !strings.Contains(err.Error(), "ended without sending exit") {
		t.Fatalf("Run = %v", err)
	}
	evs, _ := h.store.Events(t.Context(), h.loc, a)
	if len(evs) == 0 {
		t.Fatal("nothing stored")
	}
	if last := evs[len(evs)-1]; last.Type != conversation.EventTypeTurnEnd || last.Outcome != conversation.OutcomeStopped {
		t.Errorf("last event = %+v", last)
	}
	release, err := h.store.Lock(t.Context(), h.loc, a, 0)
	if err != nil {
		t.Fatalf("the conversation is still locked: %v", err)
	}
	_ = release()
}

// TestPluginDelegatedTurnAttachments: a plugin query's attachments are read
// in the addressed checkout and recorded on the chat_request; a path
// leaving the checkout refuses the query before anything is read or
// stored.
func TestPluginDelegatedTurnAttachments(t *testing.T) {
	h := newHost(t)
	a := h.conv("alpha")
	err := h.run(ready,
		send(fmt.Sprintf(`{"type":"query","id":"q1","conversation":"%s","content":"read these","attachments":["notes.txt","src/**/*.go"]}`, a)),
		until("query_complete"),
		send(fmt.Sprintf(`{"type":"query","id":"q2","conversation":"%s","content":"and this","attachments":["../other/secret.txt"]}`, a)),
		until("error"), exit0)
	if err != nil {
		t.Fatal(err)
	}
	calls := h.attacher.AttachCalls()
	if len(calls) != 1 || strings.Join(calls[0].Req.Specs, ",") != "notes.txt,src/**/*.go" || calls[0].Req.Dir != h.loc.Root || calls[0].Req.Root != h.loc.Root {
		t.Fatalf("attach calls = %+v", calls)
	}
	evs, err := h.store.Events(t.Context(), h.loc, a)
	if err != nil || len(evs) != 4 {
		t.Fatalf("stored = %v, %v", evs, err)
	}
	if atts := evs[1].Attachments; len(atts) != 2 || atts[0].Source != "notes.txt" || atts[1].Content != "contents of src/**/*.go" {
		t.Errorf("chat_request attachments = %+v", atts)
	}
	refused := received(h.answers(), "error", "q2")
	if len(refused) != 1 || !strings.Contains(refused[0]["message"].(string), "inside the addressed checkout only") {
		t.Errorf("q2 answers = %v", refused)
	}
}
