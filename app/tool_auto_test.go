package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// kindServer is the echo tool server whose one tool, fs_read, is of kind
// kind (a server without ToolKind when kind < 0).
type kindServer struct {
	*mocks.ToolServerMock
	kind ports.ToolKind
}

func (k kindServer) ToolKind(string) ports.ToolKind { return k.kind }

func kindTools(kind ports.ToolKind) *mocks.ToolSourceMock {
	srv := &mocks.ToolServerMock{
		ToolsFunc: func(ctx context.Context) ([]llm.Tool, error) {
			return []llm.Tool{{Name: "fs_read", Parameters: json.RawMessage(`{"type":"object"}`)}}, nil
		},
		CallFunc: func(ctx context.Context, name string, args json.RawMessage) (ports.ToolResult, error) {
			return ports.ToolResult{Content: "ran"}, nil
		},
	}
	return &mocks.ToolSourceMock{OpenFunc: func(context.Context, config.Config, string) (ports.ToolServer, func(), error) {
		return kindServer{srv, kind}, func() {}, nil
	}}
}

// TestAutoModesAgainstToolKinds: each --auto level runs without asking
// exactly the tool kinds it covers (read: read-only tools; edit: also
// file edits; all: also sandboxed commands); an unsandboxed command and
// an MCP tool are asked at every level; run = "ask!" and "deny" beat
// every level; the flag beats conversation.tools.auto.
func TestAutoModesAgainstToolKinds(t *testing.T) {
	kinds := map[string]ports.ToolKind{
		"read": ports.ToolKindRead, "edit": ports.ToolKindEdit, "sandboxed": ports.ToolKindSandboxedCommand,
		"unsandboxed": ports.ToolKindCommand, "mcp": ports.ToolKindOther,
	}
	runs := map[string]map[string]bool{ // mode -> kind -> runs without asking
		"off":  {},
		"read": {"read": true},
		"edit": {"read": true, "edit": true},
		"all":  {"read": true, "edit": true, "sandboxed": true},
	}
	for mode, want := range runs {
		for kname, kind := range kinds {
			t.Run(fmt.Sprintf("%s/%s", mode, kname), func(t *testing.T) {
				f := newFixtureWith(t, func(d *app.QueryDeps) { d.Tools = kindTools(kind) },
					resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("ok")}})
				if !want[kname] {
					f.answers = []string{"y"}
				}
				if _, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true, Auto: mode}); err != nil {
					t.Fatal(err)
				}
				asked := len(f.prompter.AskCalls()) > 0
				if asked == want[kname] {
					t.Fatalf("--auto %s, %s tool: asked = %v", mode, kname, asked)
				}
			})
		}
	}
	t.Run("ask! beats all", func(t *testing.T) {
		f := newFixtureWith(t, func(d *app.QueryDeps) { d.Tools = kindTools(ports.ToolKindRead) },
			resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("ok")}})
		f.cfg.Conversation.Tools.Named["fs_read"] = config.Tool{Run: config.RunPolicyAskAlways}
		f.answers = []string{"y"}
		if _, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true, Auto: "all"}); err != nil {
			t.Fatal(err)
		}
		if len(f.prompter.AskCalls()) != 1 {
			t.Fatal("run = \"ask!\" was not asked under --auto all")
		}
	})
	t.Run("deny beats all", func(t *testing.T) {
		f := newFixtureWith(t, func(d *app.QueryDeps) { d.Tools = kindTools(ports.ToolKindRead) },
			resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("ok")}})
		f.cfg.Conversation.Tools.Named["fs_read"] = config.Tool{Run: config.RunPolicyDeny}
		_, evs, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true, Auto: "all"})
		if err != nil {
			t.Fatal(err)
		}
		if !evs[3].IsError {
			t.Fatalf("denied tool ran: %+v", evs[3])
		}
	})
	t.Run("the key works like the flag, and the flag beats it", func(t *testing.T) {
		f := newFixtureWith(t, func(d *app.QueryDeps) { d.Tools = kindTools(ports.ToolKindEdit) },
			resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("ok")}})
		f.cfg.Conversation.Tools.Auto = config.AutoModeEdit
		if _, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true}); err != nil {
			t.Fatal(err)
		}
		if len(f.prompter.AskCalls()) != 0 {
			t.Fatal("conversation.tools.auto = edit asked for an edit")
		}
		g := newFixtureWith(t, func(d *app.QueryDeps) { d.Tools = kindTools(ports.ToolKindEdit) },
			resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("ok")}})
		g.cfg.Conversation.Tools.Auto = config.AutoModeEdit
		g.answers = []string{"y"}
		if _, _, err := g.run(t, app.QueryInput{Message: "x", HasMessage: true, Auto: "off"}); err != nil {
			t.Fatal(err)
		}
		if len(g.prompter.AskCalls()) != 1 {
			t.Fatal("--auto off did not ask")
		}
	})
}

// TestAutoNeverRunsUnsandboxedCommands: whatever the mode, a command
// outside jp's sandbox (sandbox = "off", or no Landlock here) is asked,
// and one line says why. This holds on every platform.
func TestAutoNeverRunsUnsandboxedCommands(t *testing.T) {
	f := newFixtureWith(t, func(d *app.QueryDeps) { d.Tools = kindTools(ports.ToolKindCommand) },
		resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{toolCall("c2")}}, resp{events: []llm.Event{text("ok")}})
	f.answers = []string{"y", "y"}
	if _, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true, Auto: "all"}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.prompter.AskCalls()); n != 2 {
		t.Fatalf("asked %d times, want 2", n)
	}
	if out := f.printer.text(ports.ChannelChrome); !strings.Contains(out, "runs outside jp's sandbox here") {
		t.Fatalf("no line says why: %q", out)
	}
}
