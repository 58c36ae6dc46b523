package localtools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Init() // this test binary is the sandbox helper
	goleak.VerifyTestMain(m)
}

func server(t *testing.T, tools map[string]config.Tool) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.Conversation.Tools.Named = tools
	return New(cfg, t.TempDir())
}

func TestCallRunsTheCommandWithArgumentsOnStdin(t *testing.T) {
	s := server(t, map[string]config.Tool{
		"echo_args": {Command: []string{"sh", "-c", "cat; pwd"}, Description: "echo",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "integer"}}}},
	})
	tools, _ := s.Tools(context.Background())
	if len(tools) != 1 || tools[0].Name != "echo_args" || !json.Valid(tools[0].Parameters) {
		t.Fatalf("tools = %+v", tools)
	}
	r, err := s.Call(context.Background(), "echo_args", json.RawMessage(`{"x":1}`))
	if err != nil || r.IsError || !strings.HasPrefix(r.Content, `{"x":1}`) || !strings.Contains(r.Content, s.dir) {
		t.Fatalf("result = %+v, %v", r, err)
	}
}

func TestFailuresAreErrorResults(t *testing.T) {
	s := server(t, map[string]config.Tool{
		"fails":   {Command: []string{"sh", "-c", "echo broken >&2; exit 3"}},
		"missing": {Command: []string{"/no/such/program"}},
		"typed": {Command: []string{"cat"}, Parameters: map[string]any{"type": "object",
			"properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}},
	})
	for _, tt := range []struct {
		tool, args, want string
	}{
		{"fails", `{}`, "exit status 3: broken"},
		{"missing", `{}`, `tool command "/no/such/program" not found`},
		{"typed", `{"path":42}`, "do not match the tool's schema"},
		{"typed", `{}`, "do not match the tool's schema"},
		{"typed", `[1]`, "must be a JSON object"},
		{"typed", `{`, "not valid JSON"},
		{"unknown", `{}`, `unknown tool "unknown"`},
	} {
		r, err := s.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
		if err != nil || !r.IsError || !strings.Contains(r.Content, tt.want) {
			t.Errorf("%s %s: %+v, %v; want error result containing %q", tt.tool, tt.args, r, err, tt.want)
		}
	}
}

func TestCancellationStopsTheTool(t *testing.T) {
	old := KillGrace
	KillGrace = 100 * time.Millisecond
	defer func() { KillGrace = old }()
	// The tool opens a FIFO once it has started (and ignores SIGTERM):
	// opening the other end is the test's signal that it runs.
	// The FIFO is in the checkout: the tool runs in jp's sandbox, which
	// lets it write nowhere else.
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Conversation.Tools.Named = map[string]config.Tool{"sleepy": {Command: []string{"sh", "-c", "trap '' TERM; echo > " + fifo + "; sleep 30"}}}
	s := New(cfg, dir)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var content string
	go func() {
		defer close(done)
		r, _ := s.Call(ctx, "sleepy", nil)
		content = r.Content
	}()
	started, err := os.ReadFile(fifo) // returns once the tool wrote its line
	if err != nil || string(started) != "\n" {
		t.Fatalf("started = %q, %v", started, err)
	}
	cancel()
	<-done
	if content != "cancelled" {
		t.Fatalf("content = %q", content)
	}
}

// A command template (the Rust jp's command = "prog {{context}} {{tool}}")
// expands each argument on its own, in a real process, without a shell: a
// value with spaces stays one argument.
func TestCommandTemplatesExpandPerArgument(t *testing.T) {
	off := false
	s := server(t, map[string]config.Tool{
		"echo_args": {Command: []string{"sh", "-c", `for a in "$@"; do printf '[%s]\n' "$a"; done`, "sh",
			"{{tool.name}}", "{{tool.arguments.path}}", "{{context}}", "{{tool}}"}},
		"hidden": {Command: []string{"true"}, Enable: &off},
		"bad":    {Command: []string{"echo", "{{nope}}"}},
	})
	tools, _ := s.Tools(context.Background())
	if len(tools) != 2 {
		t.Errorf("offered %d tools, want 2 (enable = false hides one)", len(tools))
	}
	res, err := s.Call(context.Background(), "echo_args", json.RawMessage(`{"path":"a b; rm -rf x"}`))
	if err != nil || res.IsError {
		t.Fatalf("Call: %v %+v", err, res)
	}
	want := "[echo_args]\n[a b; rm -rf x]\n" +
		`[{"action":"run","root":"` + s.dir + `"}]` + "\n" +
		`[{"answers":{},"arguments":{"path":"a b; rm -rf x"},"name":"echo_args"}]` + "\n"
	if res.Content != want {
		t.Errorf("output:\n%s\nwant:\n%s", res.Content, want)
	}
	res, _ = s.Call(context.Background(), "bad", json.RawMessage(`{}`))
	if !res.IsError || !strings.Contains(res.Content, "unknown placeholder {{nope}}") {
		t.Errorf("bad placeholder: %+v", res)
	}
}

// The Rust jp's parameters (a table of parameter name to { type, required
// }) are offered to the model as a JSON Schema and checked as one.
func TestRustParametersAreAJSONSchema(t *testing.T) {
	s := server(t, map[string]config.Tool{
		"t": {Command: []string{"cat"}, Parameters: map[string]any{"path": map[string]any{"type": "string", "required": true}}},
	})
	tools, _ := s.Tools(context.Background())
	var sch map[string]any
	if err := json.Unmarshal(tools[0].Parameters, &sch); err != nil || sch["type"] != "object" {
		t.Fatalf("schema %s: %v", tools[0].Parameters, err)
	}
	res, _ := s.Call(context.Background(), "t", json.RawMessage(`{}`))
	if !res.IsError || !strings.Contains(res.Content, "path") {
		t.Errorf("missing required argument accepted: %+v", res)
	}
	res, _ = s.Call(context.Background(), "t", json.RawMessage(`{"path":"p"}`))
	if res.IsError || res.Content != `{"path":"p"}` {
		t.Errorf("valid call: %+v", res)
	}
}
