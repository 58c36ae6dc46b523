package web

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
)

// A write tool's call in history shows the terminal's one-line summary
// and the diff worked out from its arguments, each line classed for its
// colour; its arguments are behind a <details>. Model text stays escaped.
func TestRenderToolCallHistory(t *testing.T) {
	t.Parallel()
	s := New(fixture(), time.Now, nil)
	defer s.Close()
	args := `{"patterns":[{"old":"hello world\n","new":"hello <jp>\n","paths":["greet.txt"]}]}`
	h, err := s.renderEvent(conversation.Event{Type: conversation.EventTypeToolCallRequest, ID: "e1",
		CallID: "call_1", Name: "fs_modify_file", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<code class="summary">✎ fs_modify_file greet.txt (+1 −1)</code>`,
		`<pre class="diff"><span class="head">--- a/greet.txt` + "\n</span>",
		`<span class="head">+++ b/greet.txt` + "\n</span>",
		`<span class="del">-hello world` + "\n</span>",
		`<span class="add">+hello &lt;jp&gt;` + "\n</span>",
		`<details class="args"><summary>Arguments</summary><pre class="args">`,
	} {
		if !strings.Contains(plus(h), want) {
			t.Errorf("tool call lacks %q:\n%s", want, h)
		}
	}
	if strings.Contains(string(h), "<jp>") {
		t.Fatal("tool arguments reached the page unescaped")
	}
}

func TestHistoryDiff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, args, want string }{
		{"fs_create_file", `{"path":"a.txt","content":"one\ntwo\n"}`, "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"},
		{"fs_modify_file", `{"path":"a.txt","patterns":[{"old":"x","new":"y"}]}`,
			"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n"},
		{"fs_modify_file", `{"path":"a.txt","patterns":[{"old":"x\n","new":"y"}]}`,
			"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n\\ No newline at end of file\n"},
		{"fs_move_file", `{"path":"a","new_path":"b"}`, "diff --git a/a b/b\nrename from a\nrename to b\n"},
		{"fs_delete_file", `{"path":"a"}`, ""},
		{"echo", `{"path":"a","content":"x"}`, ""},
		{"fs_modify_file", `not json`, ""},
		{"fs_modify_file", `{"path":"big","patterns":[{"old":"` + strings.Repeat(`o\n`, 2001) + `","new":"` + strings.Repeat(`n\n`, 2000) + `"}]}`,
			"--- a/big\n+++ b/big\n@@ -1,2001 +1,2000 @@\n" + strings.Repeat("-o\n", 2001) + strings.Repeat("+n\n", 2000)},
	} {
		if got := historyDiff(tc.name, json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("historyDiff(%s, %s) =\n%q\nwant\n%q", tc.name, tc.args, got, tc.want)
		}
	}
}

// A long tool result shows its first 20 lines; the rest is behind a
// <details> "Show all" control, which needs no script.
func TestRenderToolResultFolds(t *testing.T) {
	t.Parallel()
	s := New(fixture(), time.Now, nil)
	defer s.Close()
	var lines []string
	for i := 1; i <= 25; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	h, err := s.renderEvent(conversation.Event{Type: conversation.EventTypeToolCallResponse, ID: "e2", CallID: "c",
		Content: strings.Join(lines, "\n") + "\n"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<pre class=\"out\">line 1\n", "line 20</pre>",
		`<details class="more"><summary><span class="show">Show all (5 more lines)</span>`,
		"<pre class=\"out rest\">line 21\n", "line 25</pre>",
	} {
		if !strings.Contains(plus(h), want) {
			t.Errorf("folded result lacks %q:\n%s", want, h)
		}
	}
	short, err := s.renderEvent(conversation.Event{Type: conversation.EventTypeToolCallResponse, ID: "e3", CallID: "c", Content: "a\nb"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(short), "details class=\"more\"") {
		t.Fatalf("a short result is folded:\n%s", short)
	}
}

// An approval shows the call's summary with the diff's counts and the
// diff itself; the arguments are open only when there is no diff.
func TestRenderApproval(t *testing.T) {
	t.Parallel()
	s := New(fixture(), time.Now, nil)
	defer s.Close()
	h, err := s.renderApproval(plugin.ApprovalData{CallID: "c1", Name: "fs_create_file",
		Arguments: json.RawMessage(`{"path":"web.txt","content":"x\n"}`), Diff: "--- /dev/null\n+++ b/web.txt\n@@ -0,0 +1 @@\n+x\n"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<code class="summary">✎ fs_create_file web.txt (+1 −0)</code>`, `<span class="add">+x` + "\n</span>", `<details class="args"><summary>`} {
		if !strings.Contains(plus(h), want) {
			t.Errorf("approval lacks %q:\n%s", want, h)
		}
	}
	h, err = s.renderApproval(plugin.ApprovalData{CallID: "c2", Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), `<details class="args" open>`) {
		t.Errorf("an approval without a diff hides its arguments:\n%s", h)
	}
}

// plus is rendered HTML with html/template's escaped "+" put back, so
// the wants read as the page shows them.
func plus(h template.HTML) string { return strings.ReplaceAll(string(h), "&#43;", "+") }

// Every page, and the boot page they are shown in, forbids inline script
// and anything from another origin.
func TestContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	s := New(fixture(), time.Now, nil)
	ts := httptest.NewServer(s.Handler())
	defer func() {
		s.Close()
		ts.Close()
	}()
	for _, auth := range []string{"", "Bearer " + s.Token()} {
		req, err := http.NewRequest(http.MethodGet, ts.URL+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self';") || !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET / (token %v) = %d with Content-Security-Policy %q", auth != "", resp.StatusCode, csp)
		}
	}
}

// BenchmarkRenderToolEvents renders a write call with its history diff
// and a 2,000-line tool result, folded: what a page load does per call.
func BenchmarkRenderToolEvents(b *testing.B) {
	s := New(fixture(), time.Now, nil)
	defer s.Close()
	var old, repl, out strings.Builder
	for i := range 200 {
		fmt.Fprintf(&old, "line %d of the old text\n", i)
		fmt.Fprintf(&repl, "line %d of the new text\n", i)
	}
	for i := range 2000 {
		fmt.Fprintf(&out, "result line %d\n", i)
	}
	args, err := json.Marshal(map[string]any{"path": "a.go", "patterns": []map[string]string{{"old": old.String(), "new": repl.String()}}})
	if err != nil {
		b.Fatal(err)
	}
	call := conversation.Event{Type: conversation.EventTypeToolCallRequest, ID: "e1", CallID: "c", Name: "fs_modify_file", Arguments: args}
	result := conversation.Event{Type: conversation.EventTypeToolCallResponse, ID: "e2", CallID: "c", Content: out.String()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.renderEvent(call); err != nil {
			b.Fatal(err)
		}
		if _, err := s.renderEvent(result); err != nil {
			b.Fatal(err)
		}
	}
}

// A write tool's result that holds its diff shows it coloured, like the
// call's; a result without one stays plain text.
func TestRenderToolResultDiff(t *testing.T) {
	t.Parallel()
	s := New(fixture(), time.Now, nil)
	defer s.Close()
	h, err := s.renderEvent(conversation.Event{Type: conversation.EventTypeToolCallResponse, ID: "e1", CallID: "c",
		Content: "Done: modify greet.txt (1 replacement).\n\n--- a/greet.txt\n+++ b/greet.txt\n@@ -1,2 +1,2 @@\n-Hello world\n+Hello <jp>\n Second line.\n"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<pre class="out diff"><span class="ctx">Done: modify greet.txt (1 replacement).` + "\n</span>",
		`<span class="del">-Hello world` + "\n</span>", `<span class="add">+Hello &lt;jp&gt;` + "\n</span>",
		`<span class="hunk">@@ -1,2 +1,2 @@` + "\n</span>",
	} {
		if !strings.Contains(plus(h), want) {
			t.Errorf("result lacks %q:\n%s", want, h)
		}
	}
	plain, err := s.renderEvent(conversation.Event{Type: conversation.EventTypeToolCallResponse, ID: "e2", CallID: "c", Content: "-not a diff\n+either"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plus(plain), "<pre class=\"out\">-not a diff\n+either</pre>") {
		t.Errorf("a result without a diff is not plain:\n%s", plain)
	}
}

// Events jp keeps but the page has nothing to say about are not shown as
// unknown: a --cfg that stuck is a line, another version's event hidden.
func TestRenderForeignEvents(t *testing.T) {
	t.Parallel()
	s := New(fixture(), time.Now, nil)
	defer s.Close()
	for kind, want := range map[string]string{
		"config_delta": `<div class="ev note" data-event-id="e1">The conversation&#39;s configuration changed (jp q --cfg).</div>`,
		"compaction":   `<div class="ev foreign" data-event-id="e1" hidden></div>`,
	} {
		h, err := s.renderEvent(conversation.Event{Type: conversation.EventTypeForeign, Kind: kind, ID: "e1"})
		if err != nil || string(h) != want {
			t.Errorf("%s = %s, %v; want %s", kind, h, err, want)
		}
	}
}
