package config

import "testing"

// A checkout's own configuration may not make jp commit or reach private
// addresses before the user trusts it.
func TestHoldBackGitCommitAndAllowPrivate(t *testing.T) {
	tree := map[string]any{"conversation": map[string]any{"tools": map[string]any{
		"git_commit": "turn",
		"web_fetch":  map[string]any{"allow_private": true, "run": "ask"},
	}}}
	held := HoldBack(tree, ".jp/config.toml", true)
	keys := map[string]bool{}
	for _, h := range held {
		keys[h.Key] = true
	}
	if !keys["conversation.tools.git_commit"] || !keys["conversation.tools.web_fetch.allow_private"] || len(held) != 2 {
		t.Fatalf("held %+v", held)
	}
	tools := tree["conversation"].(map[string]any)["tools"].(map[string]any)
	if _, ok := tools["git_commit"]; ok {
		t.Fatal("git_commit left in the tree")
	}
	if wf := tools["web_fetch"].(map[string]any); wf["run"] != "ask" || wf["allow_private"] != nil {
		t.Fatalf("web_fetch = %v", wf)
	}
}
