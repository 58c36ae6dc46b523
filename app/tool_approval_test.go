package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// TestRunSkipNeverAsks: run = "skip" answers with the cancellation
// response without a question.
func TestRunSkipNeverAsks(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("ok")}})
	f.cfg.Conversation.Tools.Named["fs_read"] = config.Tool{Run: config.RunPolicySkip}
	_, evs, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.prompter.AskCalls()); n != 0 {
		t.Fatalf("asked %d times", n)
	}
	if !evs[3].IsError || evs[3].Content != config.DefaultCancellationResponse {
		t.Fatalf("result = %+v", evs[3])
	}
}

// TestResultAskCanWithhold: result = "ask" answered n sends the
// cancellation response instead of the result.
func TestResultAskCanWithhold(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("ok")}})
	f.cfg.Conversation.Tools.Named["fs_read"] = config.Tool{Run: config.RunPolicyUnattended, Result: config.ResultPolicyAsk}
	f.answers = []string{"n"}
	_, evs, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	calls := f.prompter.AskCalls()
	if len(calls) != 1 || calls[0].Q.Topic != "tool_result:fs_read" {
		t.Fatalf("questions = %+v", calls)
	}
	if !evs[3].IsError || evs[3].Content != config.DefaultCancellationResponse {
		t.Fatalf("result = %+v", evs[3])
	}
}

// TestAlwaysForWorkspaceWritesTheConfig: [w] runs the call, writes run =
// "unattended" for the tool into the user's own configuration for the
// workspace (config.toml in its user-local silo, never a file in the
// checkout), says which file, and the next call is not asked.
func TestAlwaysForWorkspaceWritesTheConfig(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{toolCall("c2")}}, resp{events: []llm.Event{text("ok")}})
	f.answers = []string{"w"}
	_, evs, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.prompter.AskCalls()); n != 1 {
		t.Fatalf("asked %d times", n)
	}
	w := f.configFiles.SetStringCalls()
	if len(w) != 1 || strings.HasPrefix(w[0].File, "/proj") || !strings.HasSuffix(w[0].File, "config.toml") || !slices.Equal(w[0].Table, []string{"conversation", "tools", "fs_read"}) || w[0].Key != "run" || w[0].Value != "unattended" {
		t.Fatalf("config writes = %+v", w)
	}
	if got := f.printer.text(ports.ChannelChrome); !strings.Contains(got, `Wrote conversation.tools.fs_read.run = "unattended" to `+w[0].File) {
		t.Fatalf("chrome = %q", got)
	}
	if evs[3].IsError || evs[5].IsError {
		t.Fatalf("results = %+v %+v", evs[3], evs[5])
	}
}

// TestAlwaysForConversation: [c] is kept in the conversation: a later run
// of it is not asked.
func TestAlwaysForConversation(t *testing.T) {
	f := newFixture(t, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("ok")}},
		resp{events: []llm.Event{toolCall("c2")}}, resp{events: []llm.Event{text("ok again")}})
	f.answers = []string{"c"}
	res, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	_, evs, err := f.run(t, app.QueryInput{Message: "again", HasMessage: true, Conversation: string(res.Conversation)})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.prompter.AskCalls()); n != 1 {
		t.Fatalf("asked %d times over two runs, want 1", n)
	}
	if last := evs[len(evs)-4]; last.IsError {
		t.Fatalf("second run's result = %+v", last)
	}
	found, err := f.store.Find(context.Background(), "/proj")
	if err != nil {
		t.Fatal(err)
	}
	loc := workspace.Location{ID: found.ID, Root: found.Root}
	local, err := f.store.LocalMetadata(context.Background(), loc, res.Conversation)
	if err != nil || !slices.Equal(local.ApprovedTools(), []string{"fs_read"}) {
		t.Fatalf("approved_tools = %v (%v)", local.ApprovedTools(), err)
	}
	// Not in metadata.json: that copy goes into the checkout.
	if s, err := f.store.Get(context.Background(), loc, res.Conversation); err != nil || len(s.Metadata.LegacyApprovedTools()) != 0 {
		t.Fatalf("metadata.json approved_tools = %v (%v)", s.Metadata.LegacyApprovedTools(), err)
	}
}
