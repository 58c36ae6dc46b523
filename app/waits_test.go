package app_test

import (
	"slices"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
)

// The spinner names what a turn waits for, in order: the MCP servers it
// may have to start, the model's first byte, each tool, the model again;
// each wait ends before the answer is written.
func TestWaitsNameWhatTheTurnWaitsFor(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("done")}})
	f.cfg.MCP.Servers = map[string]config.MCPServer{
		"fs":   {Command: []string{"fs-server"}, Enable: true},
		"git":  {Command: []string{"git-server"}, Enable: true},
		"gone": {Command: []string{"off"}, Enable: false},
	}
	f.cfg.Assistant.Model.ID = "demo/echo"
	f.answers = []string{"y"}
	if _, _, err := f.run(t, app.QueryInput{Message: "read it", HasMessage: true}); err != nil {
		t.Fatal(err)
	}
	f.printer.mu.Lock()
	got := slices.Compact(slices.Clone(f.printer.log))
	f.printer.mu.Unlock()
	want := []string{
		"wait starting MCP servers (fs, git…)", "stop starting MCP servers (fs, git…)",
		"wait waiting for demo/echo…", "stop waiting for demo/echo…",
		"wait running fs_read…", "stop running fs_read…",
		"wait waiting for demo/echo…", "stop waiting for demo/echo…",
		"content",
	}
	if !slices.Equal(got, want) {
		t.Errorf("waits and content:\n got %q\nwant %q", got, want)
	}
}

// No MCP server enabled: no MCP wait.
func TestNoMCPWaitWithoutServers(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{text("hi")}})
	f.cfg.Assistant.Model.ID = "demo/echo"
	if _, _, err := f.run(t, app.QueryInput{Message: "hello", HasMessage: true}); err != nil {
		t.Fatal(err)
	}
	f.printer.mu.Lock()
	got := slices.Compact(slices.Clone(f.printer.log))
	f.printer.mu.Unlock()
	if want := []string{"wait waiting for demo/echo…", "stop waiting for demo/echo…", "content"}; !slices.Equal(got, want) {
		t.Errorf("waits and content: got %q, want %q", got, want)
	}
}
