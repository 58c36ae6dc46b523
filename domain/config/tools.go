package config

import (
	"slices"
)

// Tools is the [conversation.tools] table: the key "defaults" holds the
// policy every tool inherits; every other key is one tool.
type Tools struct {
	Defaults ToolDefaults    `toml:"defaults" doc:"The policy every tool inherits unless its own table overrides it."`
	Named    map[string]Tool `toml:"*" doc:"A tool: a local command tool (command, description, parameters), or a policy for a tool from an MCP server (<server>__<tool>)."`
}

// ToolDefaults is the [conversation.tools.defaults] table.
type ToolDefaults struct {
	Run                  RunPolicy `toml:"run" doc:"ask: ask before each call (y/Y/n/N). unattended: run without asking. deny: answer the call with an error."`
	CancellationResponse string    `toml:"cancellation_response" doc:"The tool result sent to the model when the user cancels a call."`
}

// Tool is one [conversation.tools.<name>] table. Run and
// CancellationResponse left unset (RunPolicyUnknown, "") inherit the
// defaults; Config.Tool fills them in.
type Tool struct {
	Run                  RunPolicy      `toml:"run" doc:"ask, unattended or deny; unset inherits conversation.tools.defaults.run."`
	CancellationResponse string         `toml:"cancellation_response" doc:"Unset inherits conversation.tools.defaults.cancellation_response."`
	Command              []string       `toml:"command" doc:"A local tool: the program and its arguments, each of which may hold {{tool}}, {{context}} and their fields (see docs/configuration.md). A string is split at white space; a table { program, args } is the program and its arguments. It gets the call's arguments as a JSON object on stdin and writes the result to stdout."`
	Enable               *bool          `toml:"enable" doc:"false: the local tool is not offered to the model. Unset: offered."`
	Description          string         `toml:"description" doc:"What the tool does, as shown to the model."`
	Parameters           map[string]any `toml:"parameters" doc:"JSON Schema of the tool's arguments (an object schema)."`
}

// IsLocal reports whether the tool is a local command tool.
func (t Tool) IsLocal() bool { return len(t.Command) > 0 }

// Enabled reports whether the tool is offered: unless enable = false.
func (t Tool) Enabled() bool { return t.Enable == nil || *t.Enable }

// Tool returns the configuration of the tool name with the defaults merged
// in: its own run and cancellation_response when set, the defaults'
// otherwise. A tool without a table of its own (an MCP tool, say) gets the
// defaults alone.
func (c Config) Tool(name string) Tool {
	t := c.Conversation.Tools.Named[name]
	if t.Run == RunPolicyUnknown {
		t.Run = c.Conversation.Tools.Defaults.Run
	}
	if t.CancellationResponse == "" {
		t.CancellationResponse = c.Conversation.Tools.Defaults.CancellationResponse
	}
	return t
}

// LocalTools returns the names of the configured local command tools that
// are enabled, sorted.
func (c Config) LocalTools() []string {
	names := filterKeys(c.Conversation.Tools.Named, func(n string) bool {
		t := c.Conversation.Tools.Named[n]
		return t.IsLocal() && t.Enabled()
	})
	slices.Sort(names)
	return names
}
