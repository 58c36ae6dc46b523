package config

import (
	"slices"
)

// Tools is the [conversation.tools] table: the key "defaults" holds the
// policy every tool inherits; every other key is one tool.
type Tools struct {
	Defaults  ToolDefaults    `toml:"defaults" doc:"The policy every tool inherits unless its own table overrides it."`
	Auto      AutoMode        `toml:"auto" doc:"Which tools run without asking, over a tool's run = \"ask\" (never over \"ask!\", \"deny\", \"skip\" or \"edit\"): read (read-only tools), edit (also file edits inside the checkout), all (also commands in the sandbox) or off. A command that is not sandboxed is never run without asking by this key. jp q --auto sets it for one run."`
	Snapshots Snapshots       `toml:"snapshots" doc:"File snapshots for jp conversation rewind: before a tool changes a file, its earlier content is kept in the user-local store."`
	GitCommit GitCommit       `toml:"git_commit" doc:"off: commit nothing. turn: at the end of each turn, commit the files jp's tools changed on the current branch (never amend, never push)."`
	Named     map[string]Tool `toml:"*" doc:"A tool: a local command tool (command, description, parameters), or a policy for a tool from an MCP server (<server>__<tool>)."`
}

// ToolDefaults is the [conversation.tools.defaults] table.
type ToolDefaults struct {
	Run                  RunPolicy    `toml:"run" doc:"ask: ask before each call. unattended: run without asking. edit: open the call's arguments in the editor, then ask. skip: do not run it; the model gets the cancellation response. deny: answer the call with an error."`
	Result               ResultPolicy `toml:"result" doc:"unattended: send a tool's result to the model as it is. ask: ask before sending it. edit: open it in the editor and send what is saved."`
	CancellationResponse string       `toml:"cancellation_response" doc:"The tool result sent to the model when the user cancels a call."`
	Sandbox              SandboxLevel `toml:"sandbox" doc:"The sandbox of the commands jp runs for the model (shell, local command tools): workspace-write (writes only in the checkout and a private temporary directory; no secret directories, no network, no new privileges), read-only (no writes but the temporary directory) or off. Needs Linux with Landlock; see docs/tools.md."`
	DenyRead             []string     `toml:"deny_read" doc:"More paths (~ for the home directory) no sandboxed command may read, besides jp's own list (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, jp's data and configuration directories, ...)."`
}

// Tool is one [conversation.tools.<name>] table. Run and
// CancellationResponse left unset (RunPolicyUnknown, "") inherit the
// defaults; Config.Tool fills them in.
type Tool struct {
	Run                  RunPolicy      `toml:"run" doc:"ask, unattended, edit, skip or deny; unset inherits conversation.tools.defaults.run."`
	Result               ResultPolicy   `toml:"result" doc:"unattended, ask or edit; unset inherits conversation.tools.defaults.result."`
	CancellationResponse string         `toml:"cancellation_response" doc:"Unset inherits conversation.tools.defaults.cancellation_response."`
	Command              []string       `toml:"command" doc:"A local tool: the program and its arguments, each of which may hold {{tool}}, {{context}} and their fields (see docs/configuration.md). A string is split at white space; a table { program, args } is the program and its arguments. It gets the call's arguments as a JSON object on stdin and writes the result to stdout. Without a command, a built-in tool's name (fs_read_file, fs_modify_file, shell, ...) enables that built-in tool."`
	Enable               *bool          `toml:"enable" doc:"false: the local tool is not offered to the model. Unset: offered."`
	Description          string         `toml:"description" doc:"What the tool does, as shown to the model (a built-in tool has its own unless this is set)."`
	Parameters           map[string]any `toml:"parameters" doc:"JSON Schema of the tool's arguments (an object schema)."`
	Allow                []string       `toml:"allow" doc:"Built-in tools: globs (relative to the checkout, ** for any depth) of the paths the tool may touch; empty allows every path in the checkout."`
	Deny                 []string       `toml:"deny" doc:"Built-in tools: globs of paths the tool must not touch, checked after allow."`
	TimeoutSecs          int            `toml:"timeout_secs" doc:"The shell built-in tool: seconds a command may run before it is stopped; 0 means 120. web_fetch: seconds a fetch may take; 0 means 30."`
	MaxBytes             int            `toml:"max_bytes" doc:"The web_fetch built-in tool: the most bytes of a body read (the rest is cut, and the result says so); 0 means 1 MiB."`
	AllowPrivate         bool           `toml:"allow_private" doc:"The web_fetch built-in tool: true also fetches from loopback, link-local and private addresses (your machine and network); by default they are refused, checked on the address dialled for every redirect."`
	Sandbox              SandboxLevel   `toml:"sandbox" doc:"shell and local command tools: workspace-write, read-only or off; unset inherits conversation.tools.defaults.sandbox."`
	Access               Access         `toml:"access" doc:"What the tool's sandbox grants beyond its level: [[access.fs]] paths to read or write, [[access.net]] network."`
}

// Access is a tool's [access] table (the Rust jp's access policy): the
// sandbox enforces its fs rules and whether any net rule allows the
// network.
type Access struct {
	FS  []FsRule  `toml:"fs" doc:"Paths the tool's sandbox grants: { path, read, write } (path relative to the checkout, absolute, or ~/...)."`
	Net []NetRule `toml:"net" doc:"Network the tool's sandbox allows: { host, scheme, port, allow }. Any rule with allow = true opens the network to the tool (the sandbox cannot filter by host)."`
}

// FsRule is one [[access.fs]] rule. create, update and delete default
// to write; the sandbox grants writing when any of them is true.
type FsRule struct {
	Path    string `toml:"path" doc:"The path: relative to the checkout, absolute, or ~/..."`
	Read    *bool  `toml:"read" doc:"Grant reading (even under a denied secret directory)."`
	Write   *bool  `toml:"write" doc:"Grant writing (create, update, delete)."`
	Create  *bool  `toml:"create" doc:"Grant creating files (default: write)."`
	Update  *bool  `toml:"update" doc:"Grant changing files (default: write)."`
	Delete  *bool  `toml:"delete" doc:"Grant removing files (default: write)."`
	Execute *bool  `toml:"execute" doc:"Grant running programs (reads allow it already)."`
}

// Writes reports whether the rule grants any kind of writing.
func (r FsRule) Writes() bool {
	w := r.Write != nil && *r.Write
	for _, b := range []*bool{r.Create, r.Update, r.Delete} {
		if b != nil {
			w = w || *b
		}
	}
	return w
}

// Reads reports whether the rule grants reading.
func (r FsRule) Reads() bool { return r.Read != nil && *r.Read }

// NetRule is one [[access.net]] rule.
type NetRule struct {
	Host   string `toml:"host" doc:"The host (not enforced by the sandbox)."`
	Scheme string `toml:"scheme" doc:"http or https (not enforced by the sandbox)."`
	Port   int    `toml:"port" doc:"The port (not enforced by the sandbox)."`
	Allow  bool   `toml:"allow" doc:"true opens the network to the tool."`
}

// Network reports whether the tool's access allows the network.
func (a Access) Network() bool {
	for _, r := range a.Net {
		if r.Allow {
			return true
		}
	}
	return false
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
	if t.Result == ResultPolicyUnknown {
		t.Result = c.Conversation.Tools.Defaults.Result
	}
	if t.CancellationResponse == "" {
		t.CancellationResponse = c.Conversation.Tools.Defaults.CancellationResponse
	}
	if t.Sandbox == SandboxLevelUnknown {
		t.Sandbox = c.Conversation.Tools.Defaults.Sandbox
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

// UnnamedTools returns the names of the [conversation.tools.<name>]
// tables without a command, sorted: policies for MCP tools, and the
// built-in tools the configuration enables.
func (c Config) UnnamedTools() []string {
	names := filterKeys(c.Conversation.Tools.Named, func(n string) bool {
		return !c.Conversation.Tools.Named[n].IsLocal()
	})
	slices.Sort(names)
	return names
}
