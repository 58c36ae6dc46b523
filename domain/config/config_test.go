package config

import (
	"reflect"
	"testing"
	"time"
)

func TestDefault(t *testing.T) {
	c := Default()
	checks := []struct {
		name      string
		got, want any
	}{
		{"assistant.model.id", c.Assistant.Model.ID, ""},
		{"assistant.request.max_retries", c.Assistant.Request.MaxRetries, 5},
		{"providers.openai.base_url", c.Providers.OpenAI.BaseURL, "https://api.openai.com/v1"},
		{"providers.openai.api_key_env", c.Providers.OpenAI.APIKeyEnv, "OPENAI_API_KEY"},
		{"providers.anthropic.base_url", c.Providers.Anthropic.BaseURL, ""},
		{"providers.anthropic.api_key_env", c.Providers.Anthropic.APIKeyEnv, "ANTHROPIC_API_KEY"},
		{"providers.ollama.base_url", c.Providers.Ollama.BaseURL, "http://127.0.0.1:11434"},
		{"providers.demo.script", c.Providers.Demo.Script, ""},
		{"query.loop", c.Query.Loop, LoopPolicyIfPending},
		{"query.compose_in_editor", c.Query.ComposeInEditor, ComposeInEditorFalse},
		{"interrupt.escalation_cooldown_secs", c.Interrupt.EscalationCooldownSecs, 2},
		{"interrupt.streaming.action", c.Interrupt.Streaming.Action, StreamingActionPrompt},
		{"interrupt.streaming.compose_in_editor", c.Interrupt.Streaming.ComposeInEditor, ComposeInEditorFalse},
		{"interrupt.tool_call.action", c.Interrupt.ToolCall.Action, ToolCallActionPrompt},
		{"interrupt.tool_call.compose_in_editor", c.Interrupt.ToolCall.ComposeInEditor, ComposeInEditorFalse},
		{"interrupt.loop_countdown.duration_secs", c.Interrupt.LoopCountdown.DurationSecs, 10},
		{"interrupt.loop_countdown.action", c.Interrupt.LoopCountdown.Action, CountdownActionPrompt},
		{"interrupt.loop_countdown.compose_in_editor", c.Interrupt.LoopCountdown.ComposeInEditor, ComposeInEditorFalse},
		{"conversation.tools.defaults.run", c.Conversation.Tools.Defaults.Run, RunPolicyAsk},
		{"conversation.tools.defaults.cancellation_response", c.Conversation.Tools.Defaults.CancellationResponse, DefaultCancellationResponse},
		{"mcp.idle_shutdown_secs", c.MCP.IdleShutdownSecs, 300},
		{"mcp.max_instances", c.MCP.MaxInstances, 16},
		{"plugins.shutdown_timeout_secs", c.Plugins.ShutdownTimeoutSecs, 5},
		{"plugins.respond_timeout_secs", c.Plugins.RespondTimeoutSecs, 300},
		{"plugins.write_timeout_secs", c.Plugins.WriteTimeoutSecs, 10},
		{"escalation cooldown", c.Interrupt.EscalationCooldown(), 2 * time.Second},
		{"countdown", c.Interrupt.LoopCountdown.Duration(), 10 * time.Second},
		{"idle shutdown", c.MCP.IdleShutdown(), 300 * time.Second},
		{"shutdown timeout", c.Plugins.ShutdownTimeout(), 5 * time.Second},
		{"respond timeout", c.Plugins.RespondTimeout(), 300 * time.Second},
	}
	for _, tt := range checks {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if c.MCP.Servers == nil || c.Plugins.Command == nil || c.Conversation.Tools.Named == nil {
		t.Error("default maps are nil")
	}
}

func TestTool(t *testing.T) {
	c := Default()
	c.Conversation.Tools.Defaults = ToolDefaults{Run: RunPolicyDeny, CancellationResponse: "cancelled"}
	c.Conversation.Tools.Named = map[string]Tool{
		"own":     {Run: RunPolicyUnattended, CancellationResponse: "mine", Command: []string{"x"}},
		"inherit": {Command: []string{"y"}, Description: "d"},
		"policy":  {Run: RunPolicyAsk},
	}
	tests := []struct {
		name string
		want Tool
	}{
		{"own", Tool{Run: RunPolicyUnattended, CancellationResponse: "mine", Command: []string{"x"}}},
		{"inherit", Tool{Run: RunPolicyDeny, CancellationResponse: "cancelled", Command: []string{"y"}, Description: "d"}},
		{"policy", Tool{Run: RunPolicyAsk, CancellationResponse: "cancelled"}},
		{"server__absent", Tool{Run: RunPolicyDeny, CancellationResponse: "cancelled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Tool(tt.name); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tool(%q) = %+v, want %+v", tt.name, got, tt.want)
			}
		})
	}
	if got := c.LocalTools(); !reflect.DeepEqual(got, []string{"inherit", "own"}) {
		t.Errorf("LocalTools() = %v", got)
	}
}

func TestPluginAndServers(t *testing.T) {
	c := Default()
	if got := c.Plugin("absent"); got.Run != RunPolicyAsk || got.Checksum != nil {
		t.Errorf("Plugin(absent) = %+v", got)
	}
	c.Plugins.Command["p"] = PluginCommand{Run: RunPolicyDeny}
	if got := c.Plugin("p"); got.Run != RunPolicyDeny {
		t.Errorf("Plugin(p) = %+v", got)
	}
	c.MCP.Servers = map[string]MCPServer{"b": {Enable: true}, "a": {Enable: true}, "off": {}}
	if got := c.MCP.EnabledServers(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("EnabledServers() = %v", got)
	}
	var s MCPServer
	s.SetDefaults()
	var cs Checksum
	cs.SetDefaults()
	if !s.Enable || cs.Algorithm != ChecksumAlgorithmSHA256 {
		t.Errorf("SetDefaults: server %+v checksum %+v", s, cs)
	}
}
