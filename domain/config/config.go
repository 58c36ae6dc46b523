// Package config holds the typed schema of jp's configuration (SPEC section
// 4), its built-in defaults, the closed value types (enums) of its keys, and
// the pure rules for configuration trees: merging layers, looking up and
// setting dot paths.
//
// It does no I/O and parses no TOML: adapters/tomlconfig reads the layers,
// validates each against these types (walking their struct tags), merges
// them and decodes the result into a Config. Every key is documented in
// docs/configuration.md.
//
// Struct tags used by the loader:
//
//	toml:"name"  the key; toml:"*" on a map field takes every key of the
//	             table that no other field names (conversation.tools)
//	doc:"..."    the description published in the JSON Schema
//	min:"N"      the smallest accepted integer (default 0)
package config

import (
	"net/url"
	"slices"
	"strings"
	"time"
)

// Config is the resolved configuration of one jp run.
type Config struct {
	Assistant    Assistant    `toml:"assistant" doc:"The model and how requests to it are made."`
	Providers    Providers    `toml:"providers" doc:"Connection settings per LLM provider."`
	Query        Query        `toml:"query" doc:"How jp query composes and when it runs another turn."`
	Interrupt    Interrupt    `toml:"interrupt" doc:"What Ctrl-C does in each context of a query."`
	Conversation Conversation `toml:"conversation" doc:"Conversation settings: tools."`
	MCP          MCP          `toml:"mcp" doc:"MCP servers and their instance pool."`
	Plugins      Plugins      `toml:"plugins" doc:"Command plugins."`
	Editor       Editor       `toml:"editor" doc:"The external editor jp composes in."`
	Template     Template     `toml:"template" doc:"Values for jp query -% (--template)."`
	Style        Style        `toml:"style" doc:"How jp query's output looks: reasoning, tool calls, the colour theme."`
	// ConfigLoadPaths are searched by --cfg NAME (after .jp/config).
	ConfigLoadPaths []string `toml:"config_load_paths" merge:"append" doc:"Directories, relative to the workspace root, whose TOML files --cfg NAME loads by name (.jp/config is always searched first). The arrays of all layers are appended, not replaced."`
	// SafeDirectories is read by the workspace search from the user's
	// file alone (tomlconfig.SafeDirectories); here it only validates.
	SafeDirectories []string `toml:"safe_directories" doc:"Workspace directories whose .jp/ or .jp.toml another user may own, like git's safe.directory: an absolute path, a path ending in /* for every directory below it, or \"*\" for all. Only the user configuration file counts; in a workspace's files the key has no effect."`
	// User is who the user is (the Rust jp's [user]).
	User User `toml:"user" doc:"Who you are in conversations (jp init asks for it)."`

	// ProjectFiles are the checkout's instruction files (AGENTS.md,
	// .jp/instructions.md) that exist, read by the loader; not a key.
	ProjectFiles []ProjectFile
}

// Editor is the [editor] table.
type Editor struct {
	Cmd string `toml:"cmd" doc:"The editor command, words split on spaces (e.g. \"code --wait\"); the file to edit is added last. Empty: $JP_EDITOR, $VISUAL, $EDITOR, then editor, nano or vi found on $PATH."`
}

// User is the [user] table, as the Rust jp has it.
type User struct {
	Name string `toml:"name" doc:"Your display name, as the Rust jp's jp init records it in the user configuration file (this jp records it but does not stamp it on messages yet). Empty: none."`
}

// Assistant is the [assistant] table.
type Assistant struct {
	Model        Model  `toml:"model" doc:"The model to talk to."`
	SystemPrompt string `toml:"system_prompt" merge:"strategy" doc:"Instructions sent to the model before the conversation on every request (its system prompt). Empty: none. Set it per workspace in .jp/config.toml to describe the project. A table { value, strategy = \"append\"|\"prepend\"|\"replace\", separator } merges with the layers below instead of replacing them."`
	// SystemPromptSections are composed into the system prompt after
	// SystemPrompt (see Config.SystemPrompt).
	SystemPromptSections []PromptSection `toml:"system_prompt_sections" merge:"strategy" doc:"Sections appended to the system prompt, ordered by position: a string, or a table { content, tag, title, position }. An array is appended to the layers' below; a table { value = [...], strategy = \"append\"|\"prepend\"|\"replace\" } says how it merges with them."`
	Instructions         []Instructions  `toml:"instructions" merge:"strategy" doc:"Sections of instructions ([[assistant.instructions]] tables with title, description, items, examples and position), appended to the system prompt after system_prompt_sections, by position. An array is appended to the layers' below; a table { value = [...], strategy = \"append\"|\"prepend\"|\"replace\" } says how it merges with them."`
	Request              Request         `toml:"request" doc:"How provider requests are made."`
}

// Model is the [assistant.model] table.
type Model struct {
	ID         string            `toml:"id" doc:"\"<provider>/<model>\", e.g. \"anthropic/claude-sonnet-4-5\" or \"demo/echo\", or an alias. Empty: anthropic if its API key is set, else openai if its key is set, else demo/echo."`
	Aliases    map[string]string `toml:"aliases" doc:"Short names for models, e.g. fast = \"anthropic/claude-haiku-4-5\"; usable in --model and assistant.model.id."`
	Parameters ModelParameters   `toml:"parameters" doc:"Model parameters sent with every request (flags: --param KEY=VALUE, --reasoning, --no-reasoning, --tool-choice)."`
	// ContextWindows override the built-in context windows (llm.ContextWindow).
	ContextWindows map[string]int `toml:"context_windows" doc:"Context windows in tokens, keyed by \"<provider>/<model>\" (or by \"<provider>\" for all its models); they override the built-in table the context meter and automatic compaction use, e.g. { \"ollama/qwen3\" = 32768 }."`
}

// Request is the [assistant.request] table.
type Request struct {
	MaxRetries int `toml:"max_retries" doc:"Retries of a transient provider error (429, 5xx, dropped stream), with backoff."`
}

// Providers is the [providers] table.
type Providers struct {
	OpenAI     OpenAI     `toml:"openai" doc:"OpenAI (the Responses API on OpenAI's endpoint), or any OpenAI-compatible server through base_url (Chat Completions)."`
	Anthropic  Anthropic  `toml:"anthropic" doc:"Anthropic's Messages API."`
	Ollama     Ollama     `toml:"ollama" doc:"An Ollama server, spoken to through its own chat API (/api/chat)."`
	Google     Compatible `toml:"google" doc:"Google Gemini (the Gemini API)."`
	OpenRouter Compatible `toml:"openrouter" doc:"OpenRouter (OpenAI-compatible), models openrouter/<vendor>/<model>."`
	LlamaCpp   Compatible `toml:"llamacpp" doc:"A llama.cpp server (OpenAI-compatible)."`
	Cerebras   Compatible `toml:"cerebras" doc:"Cerebras inference (OpenAI-compatible)."`
	DeepSeek   Compatible `toml:"deepseek" doc:"DeepSeek (OpenAI-compatible)."`
	Demo       Demo       `toml:"demo" doc:"The built-in offline demo provider."`
	LLM        LLM        `toml:"llm" doc:"Provider settings shared with the Rust jp: aliases."`
	// Named are the user's own providers ([providers.<name>] with kind =
	// "openai-compatible").
	Named map[string]NamedProvider `toml:"*" doc:"A provider of your own, used as <name>/<model>: kind = \"openai-compatible\", base_url, api_key_env."`
}

// Compatible is the table of a provider with a base URL and a key
// variable ([providers.google], [providers.openrouter], ...).
type Compatible struct {
	BaseURL   string `toml:"base_url" doc:"Base URL of the API."`
	APIKeyEnv string `toml:"api_key_env" doc:"Name of the environment variable holding the API key; empty sends none."`
}

// NamedProvider is a [providers.<name>] table of the user's own.
type NamedProvider struct {
	Kind      string `toml:"kind" doc:"The API it speaks: \"openai-compatible\" (Chat Completions)."`
	BaseURL   string `toml:"base_url" doc:"Base URL of the API, e.g. \"http://127.0.0.1:8000/v1\"."`
	APIKeyEnv string `toml:"api_key_env" doc:"Name of the environment variable holding the API key; empty sends none."`
}

// LLM is the [providers.llm] table, as the Rust jp spells it.
type LLM struct {
	Aliases map[string]string `toml:"aliases" doc:"Model aliases, like assistant.model.aliases (which wins on a clash); a value may be \"<provider>/<model>\" or { provider, name }."`
}

// OpenAI is the [providers.openai] table.
type OpenAI struct {
	BaseURL   string             `toml:"base_url" doc:"Base URL of the API."`
	API       string             `toml:"api" doc:"The API to speak: \"responses\" or \"chat_completions\"; a value set always wins. Unset: responses on OpenAI's own endpoint, chat_completions on another base_url."`
	APIKeyEnv string             `toml:"api_key_env" doc:"Name of the environment variable holding the API key."`
	Pricing   map[string]Pricing `toml:"pricing" doc:"Prices per model name, for the cost shown at the end of a turn; they override the built-in table."`
}

// Anthropic is the [providers.anthropic] table.
type Anthropic struct {
	BaseURL   string             `toml:"base_url" doc:"Base URL of the Messages API; empty uses the SDK's default."`
	APIKeyEnv string             `toml:"api_key_env" doc:"Name of the environment variable holding the API key."`
	Pricing   map[string]Pricing `toml:"pricing" doc:"Prices per model name, for the cost shown at the end of a turn; they override the built-in table."`
}

// Ollama is the [providers.ollama] table.
type Ollama struct {
	BaseURL   string `toml:"base_url" doc:"Base URL of the Ollama server (a trailing /v1 is ignored)."`
	APIKeyEnv string `toml:"api_key_env" doc:"Name of the environment variable holding an API key (Ollama's cloud, or a server behind a proxy); unset variable sends none."`
}

// Demo is the [providers.demo] table.
type Demo struct {
	Script string `toml:"script" doc:"Path of a JSON script of responses to play; empty echoes the last user message."`
}

// Query is the [query] table (docs/interrupts.md).
type Query struct {
	Loop             LoopPolicy      `toml:"loop" doc:"When to run another turn after one ends. never: end the invocation; a queued reply stays as a draft for the next jp q. if_pending: run another turn when a reply is queued. always: session mode, the composer opens again after each turn (docs/session.md)."`
	ComposeInEditor  ComposeInEditor `toml:"compose_in_editor" doc:"Where a query is composed. false: inline widget, Ctrl+X escapes to the editor. true: the editor, falling back to the inline widget. \"always\": the editor only. \"never\": the inline widget only."`
	ContinueOnLength int             `toml:"continue_on_length" doc:"When a response is cut by the token limit (assistant.model.parameters.max_tokens), ask the model to continue it up to this many times in the same turn. 0: stop and say so."`
}

// Interrupt is the [interrupt] table.
type Interrupt struct {
	EscalationCooldownSecs int             `toml:"escalation_cooldown_secs" doc:"Ctrl-C escalates: the first press goes to the current menu, the second begins a graceful shutdown, the third exits at once. The count resets after this many seconds without a Ctrl-C."`
	Streaming              StreamingConfig `toml:"streaming" doc:"Ctrl-C while the assistant is generating content."`
	ToolCall               ToolCallConfig  `toml:"tool_call" doc:"Ctrl-C while tools are executing."`
	LoopCountdown          CountdownConfig `toml:"loop_countdown" doc:"The countdown before a queued reply is sent. Unreachable when query.loop is never."`
}

// EscalationCooldown is EscalationCooldownSecs as a duration.
func (i Interrupt) EscalationCooldown() time.Duration {
	return time.Duration(i.EscalationCooldownSecs) * time.Second
}

// StreamingConfig is the [interrupt.streaming] table.
type StreamingConfig struct {
	Action          StreamingAction `toml:"action" doc:"What Ctrl-C does. prompt: show the menu. continue: resume the response. reply: stop and send a new message. queue_reply: compose a reply sent after the turn ends. stop: save the response so far and exit. abort: discard the in-progress response and exit."`
	ComposeInEditor ComposeInEditor `toml:"compose_in_editor" doc:"Where reply and queue_reply compose: false, true, \"always\" or \"never\" (see query.compose_in_editor)."`
}

// ToolCallConfig is the [interrupt.tool_call] table.
type ToolCallConfig struct {
	Action          ToolCallAction  `toml:"action" doc:"What Ctrl-C does. prompt: show the menu. continue: keep waiting for the tools. respond: cancel the tools and send a message in their place. queue_reply: compose a reply sent after the turn ends. stop: cancel the tools and exit. restart: cancel the tools and run them again."`
	ComposeInEditor ComposeInEditor `toml:"compose_in_editor" doc:"Where respond and queue_reply compose: false, true, \"always\" or \"never\" (see query.compose_in_editor)."`
}

// CountdownConfig is the [interrupt.loop_countdown] table.
type CountdownConfig struct {
	DurationSecs    int             `toml:"duration_secs" doc:"How long the countdown before sending a queued reply runs. 0 sends immediately, with no countdown and no chance to interrupt (action and compose_in_editor are then unreachable)."`
	Action          CountdownAction `toml:"action" doc:"What Ctrl-C does during the countdown. prompt: show the menu. send: send the queued reply now. keep: keep the draft and end the invocation. discard: delete the draft and end the invocation. edit: open the composer, then restart the countdown."`
	ComposeInEditor ComposeInEditor `toml:"compose_in_editor" doc:"Where [e] Edit draft composes: false, true, \"always\" or \"never\" (see query.compose_in_editor)."`
}

// Duration is DurationSecs as a duration.
func (c CountdownConfig) Duration() time.Duration {
	return time.Duration(c.DurationSecs) * time.Second
}

// Conversation is the [conversation] table.
type Conversation struct {
	Tools       Tools      `toml:"tools" doc:"Tools offered to the model: defaults, and one table per local tool or per-tool policy."`
	Limits      Limits     `toml:"limits" doc:"Size limits on what is stored: a value over one is refused with one line, and nothing is written."`
	Attachments []string   `toml:"attachments" merge:"strategy" dedup:"true" doc:"Attached to every query's message, like -a: paths (files, directories, globs, relative to the checkout and confined to it: no absolute path, no .., no symbolic link leading out), cmd:COMMAND, http(s) URLs. See docs/attachments.md. An array is appended to the layers' below (an attachment given twice is kept once); a table { value = [...], strategy = \"append\"|\"prepend\"|\"replace\", dedup } says how it merges with them."`
	Title       Title      `toml:"title" doc:"How a conversation's title is made."`
	Compaction  Compaction `toml:"compaction" doc:"Non-destructive compaction: the rules of jp conversation compact."`
}

// Title is the [conversation.title] table.
type Title struct {
	Model string `toml:"model" doc:"The model that writes a conversation's title after its first turn (<provider>/<model> or an alias); empty: the conversation's model; none: no generated titles (the first line of the first message stays the title)."`
}

// TitleModelNone is the conversation.title.model value that turns title
// generation off.
const TitleModelNone = "none"

// Limits is the [conversation.limits] table.
type Limits struct {
	MessageBytes int `toml:"message_bytes" min:"1" doc:"The largest message a turn sends (jp query's message, a plugin's query content), in bytes."`
	DraftBytes   int `toml:"draft_bytes" min:"1" doc:"The largest draft query text (QUERY_MESSAGE.md) a plugin's write_draft (the web page's message box) may write, in bytes."`
	// ConversationBytes is read from the user's configuration and the
	// JP_CFG_* variables only: a checkout's files cannot raise it.
	ConversationBytes int `toml:"conversation_bytes" min:"1" doc:"The largest conversation (its events.json, user-local or a checkout's copy) jp reads, in bytes: a bigger one is refused from its size, before anything of it is read. Read from your user configuration and JP_CFG_* variables only (a checkout's files cannot raise it); JP_MAX_EVENTS_BYTES overrides it."`
}

// DefaultConversationBytes is the default of
// conversation.limits.conversation_bytes: 256 MiB.
const DefaultConversationBytes = 256 << 20

// DefaultLimitBytes is the default of conversation.limits.message_bytes
// and conversation.limits.draft_bytes: 4 MiB.
const DefaultLimitBytes = 4 << 20

// MCP is the [mcp] table.
type MCP struct {
	IdleShutdownSecs int                  `toml:"idle_shutdown_secs" doc:"An MCP server instance with no lease for this many seconds is stopped."`
	MaxInstances     int                  `toml:"max_instances" min:"1" doc:"At most this many MCP server instances run at once."`
	Servers          map[string]MCPServer `toml:"servers" doc:"MCP servers by name; their tools are offered as <server>__<tool>."`
}

// IdleShutdown is IdleShutdownSecs as a duration.
func (m MCP) IdleShutdown() time.Duration {
	return time.Duration(m.IdleShutdownSecs) * time.Second
}

// RedactedURL is the server's URL without the user info, query and
// fragment, which may hold credentials, for messages, logs and listings
// ("" stays "").
func (s MCPServer) RedactedURL() string {
	if s.URL == "" {
		return ""
	}
	p, err := url.Parse(s.URL)
	if err != nil {
		return "(an unparsable URL)"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return strings.TrimSuffix(p.String(), "?")
}

// EnabledServers returns the names of the enabled servers, sorted.
func (m MCP) EnabledServers() []string {
	names := filterKeys(m.Servers, func(n string) bool { return m.Servers[n].Enable })
	slices.Sort(names)
	return names
}

// MCPServer is one [mcp.servers.<name>] table.
type MCPServer struct {
	Command []string          `toml:"command" doc:"The program and its arguments; the server speaks MCP over stdio."`
	Env     map[string]string `toml:"env" doc:"Extra environment variables for the server."`
	Enable  bool              `toml:"enable" doc:"Whether the server's tools are offered."`
	// URL, instead of Command, names a remote server spoken to over MCP's
	// Streamable HTTP transport.
	URL            string            `toml:"url" doc:"The endpoint of a remote server (Streamable HTTP), instead of command."`
	Headers        map[string]string `toml:"headers" doc:"Extra HTTP headers sent with every request to a remote server."`
	BearerTokenEnv string            `toml:"bearer_token_env" doc:"The environment variable whose value is sent to a remote server as Authorization: Bearer <value>."`
	OAuth          MCPOAuth          `toml:"oauth" doc:"A pre-registered OAuth client for a remote server (jp mcp login NAME)."`
}

// Remote reports whether the server is reached over HTTP (url) rather
// than started as a subprocess (command).
func (s MCPServer) Remote() bool { return s.URL != "" }

// MCPOAuth is the [mcp.servers.<name>.oauth] table: a client registered
// with the server's authorization server beforehand. Without client_id,
// jp registers itself dynamically where the server allows it.
type MCPOAuth struct {
	ClientID     string   `toml:"client_id" doc:"The OAuth client ID registered for jp with the server's authorization server."`
	ClientSecret string   `toml:"client_secret" doc:"The client secret of a confidential pre-registered client."`
	Scopes       []string `toml:"scopes" doc:"The scopes to ask for, instead of those the server advertises."`
}

// SetDefaults implements Defaulter: servers are enabled unless disabled.
func (s *MCPServer) SetDefaults() { s.Enable = true }

// Plugins is the [plugins] table.
type Plugins struct {
	ShutdownTimeoutSecs int                      `toml:"shutdown_timeout_secs" doc:"How long a plugin gets to exit after shutdown before it is killed."`
	RespondTimeoutSecs  int                      `toml:"respond_timeout_secs" doc:"How long a tool approval pushed to a plugin waits for its respond before it is rejected."`
	WriteTimeoutSecs    int                      `toml:"write_timeout_secs" doc:"How long a plugin may leave a message from jp unread on its stdin before it is stopped; 0 waits forever."`
	Command             map[string]PluginCommand `toml:"command" doc:"Command plugins by name: trust policy and options."`
}

// ShutdownTimeout is ShutdownTimeoutSecs as a duration.
func (p Plugins) ShutdownTimeout() time.Duration {
	return time.Duration(p.ShutdownTimeoutSecs) * time.Second
}

// WriteTimeout is WriteTimeoutSecs as a duration (0: no limit).
func (p Plugins) WriteTimeout() time.Duration {
	return time.Duration(p.WriteTimeoutSecs) * time.Second
}

// RespondTimeout is RespondTimeoutSecs as a duration.
func (p Plugins) RespondTimeout() time.Duration {
	return time.Duration(p.RespondTimeoutSecs) * time.Second
}

// PluginCommand is one [plugins.command.<name>] table.
type PluginCommand struct {
	Run      RunPolicy      `toml:"run" doc:"ask: ask before running the plugin. unattended: run it. deny: refuse to run it."`
	Checksum *Checksum      `toml:"checksum" doc:"Pin the plugin binary: it runs only while its checksum matches."`
	Options  map[string]any `toml:"options" doc:"Opaque options handed to the plugin in init."`
	Secrets  bool           `toml:"secrets" doc:"Hand the plugin the configuration's secrets (header and env values, keys, tokens) in init and read_config; without it they read <redacted>."`
}

// SetDefaults implements Defaulter: plugins ask before they run.
func (p *PluginCommand) SetDefaults() { p.Run = RunPolicyAsk }

// Checksum pins a plugin binary.
type Checksum struct {
	Algorithm ChecksumAlgorithm `toml:"algorithm" doc:"The hash algorithm."`
	Value     string            `toml:"value" doc:"The expected digest, lowercase hex."`
}

// SetDefaults implements Defaulter: the algorithm defaults to sha256.
func (c *Checksum) SetDefaults() { c.Algorithm = ChecksumAlgorithmSHA256 }

// Plugin returns the configuration of the command plugin name: its own
// table, or the defaults (run = "ask") when it has none.
func (c Config) Plugin(name string) PluginCommand {
	if p, ok := c.Plugins.Command[name]; ok {
		return p
	}
	var p PluginCommand
	p.SetDefaults()
	return p
}

// Defaulter is implemented by pointers to table types whose zero value is
// not their default. The loader calls SetDefaults on every new map entry
// (mcp.servers.<name>, plugins.command.<name>, a checksum table) before
// decoding the entry's keys into it.
type Defaulter interface {
	SetDefaults()
}

// DefaultCancellationResponse is the default of
// conversation.tools.defaults.cancellation_response.
const DefaultCancellationResponse = "The user cancelled this tool call. Reflect on why before retrying."

// Default returns the built-in defaults: the lowest configuration layer.
func Default() Config {
	return Config{
		Assistant: Assistant{Request: Request{MaxRetries: 5}},
		Style: Style{
			Reasoning: StyleReasoning{Display: ReasoningDisplay{Mode: "full"}},
			ToolCall:  StyleToolCall{Show: OptBool{Value: true, Set: true}},
			Markdown:  StyleMarkdown{Theme: "gruvbox-dark"},
			Code:      StyleCode{Color: OptBool{Value: true, Set: true}},
		},
		Providers: Providers{
			OpenAI:     OpenAI{BaseURL: "https://api.openai.com/v1", APIKeyEnv: "OPENAI_API_KEY"},
			Anthropic:  Anthropic{APIKeyEnv: "ANTHROPIC_API_KEY"},
			Ollama:     Ollama{BaseURL: "http://127.0.0.1:11434", APIKeyEnv: "OLLAMA_API_KEY"},
			Google:     Compatible{BaseURL: "https://generativelanguage.googleapis.com", APIKeyEnv: "GEMINI_API_KEY"},
			OpenRouter: Compatible{BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY"},
			LlamaCpp:   Compatible{BaseURL: "http://127.0.0.1:8080/v1"},
			Cerebras:   Compatible{BaseURL: "https://api.cerebras.ai/v1", APIKeyEnv: "CEREBRAS_API_KEY"},
			DeepSeek:   Compatible{BaseURL: "https://api.deepseek.com", APIKeyEnv: "DEEPSEEK_API_KEY"},
		},
		Query: Query{Loop: LoopPolicyIfPending, ComposeInEditor: ComposeInEditorFalse},
		Interrupt: Interrupt{
			EscalationCooldownSecs: 2,
			Streaming:              StreamingConfig{Action: StreamingActionPrompt, ComposeInEditor: ComposeInEditorFalse},
			ToolCall:               ToolCallConfig{Action: ToolCallActionPrompt, ComposeInEditor: ComposeInEditorFalse},
			LoopCountdown:          CountdownConfig{DurationSecs: 10, Action: CountdownActionPrompt, ComposeInEditor: ComposeInEditorFalse},
		},
		Conversation: Conversation{Tools: Tools{
			Defaults:  ToolDefaults{Run: RunPolicyAsk, Result: ResultPolicyUnattended, CancellationResponse: DefaultCancellationResponse, Sandbox: SandboxLevelWorkspaceWrite},
			Auto:      AutoModeOff,
			Named:     map[string]Tool{},
			Snapshots: Snapshots{MaxMB: DefaultSnapshotsMB}, GitCommit: GitCommitOff,
		}, Limits: Limits{MessageBytes: DefaultLimitBytes, DraftBytes: DefaultLimitBytes, ConversationBytes: DefaultConversationBytes},
			Compaction: Compaction{Auto: CompactionAuto{MinTurns: 5}}},
		MCP:     MCP{IdleShutdownSecs: 300, MaxInstances: 16, Servers: map[string]MCPServer{}},
		Plugins: Plugins{ShutdownTimeoutSecs: 5, RespondTimeoutSecs: 300, WriteTimeoutSecs: 10, Command: map[string]PluginCommand{}},
	}
}
