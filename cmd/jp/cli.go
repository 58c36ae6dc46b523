package main

import (
	"strings"

	"github.com/alecthomas/kong"
)

// Globals are the flags every command accepts.
type Globals struct {
	Workspace string           `short:"w" name:"workspace" placeholder:"ID|PATH|cwd" help:"Workspace to work in: a workspace ID, a path inside a checkout, or 'cwd' (the default)."`
	Verbose   int              `short:"v" type:"counter" help:"More log output on stderr and in the log file (repeat: -vv debug, -vvv trace)."`
	Cfg       []string         `short:"c" name:"cfg" sep:"none" placeholder:"KEY=VALUE|FILE|NAME" help:"Override configuration for this run (repeatable): a key (--cfg query.loop=never), a TOML file (--cfg ./x.toml) or a name under .jp/config (--cfg personas/dev)."`
	Version   kong.VersionFlag `help:"Print jp's version and exit."`
	NoPersist bool             `short:"!" name:"no-persist" help:"Store nothing: jp q keeps the conversation in memory for this run only (see docs/scripting.md); -P is the same."`
	// NoPersistP is -P, the Rust jp's second short name of --no-persist.
	NoPersistP bool   `short:"P" name:"no-persist-p" hidden:""`
	LogFile    string `name:"log-file" placeholder:"PATH|-" help:"Write the log (debug records and above) to PATH instead of the data directory's logs/jp.log; - writes no file (stderr only)."`
	LogFormat  string `name:"log-format" enum:"auto,text,json" default:"auto" help:"Log records as text or JSON lines (auto: text)."`

	// shortCfg are the values given with the short -c (not --cfg): jp q
	// reads one that names a conversation the old way (see legacyCfgID).
	shortCfg []string
}

// shortCfgValues returns the values args give with -c (as "-c V", "-cV"
// or "-c=V"), up to a "--".
func shortCfgValues(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return out
		case a == "-c" && i+1 < len(args):
			i++
			out = append(out, args[i])
		case strings.HasPrefix(a, "-c="):
			out = append(out, a[3:])
		case strings.HasPrefix(a, "-c") && len(a) > 2:
			out = append(out, a[2:])
		}
	}
	return out
}

// CLI is jp's command tree.
type CLI struct {
	Globals

	Query        QueryCmd         `cmd:"" aliases:"q" help:"Ask the assistant: send a message and stream the answer, running the tools it calls."`
	Chat         ChatCmd          `cmd:"" help:"A session: jp query --loop, the composer opening again after each answer (docs/session.md)."`
	Init         InitCmd          `cmd:"" help:"Create a jp workspace in DIR (default: the current directory)."`
	Workspace    WorkspaceCmd     `cmd:"" aliases:"w" help:"List and inspect workspaces and their checkouts."`
	Conversation ConversationCmd  `cmd:"" aliases:"c" help:"List, show and manage conversations."`
	Config       ConfigCmd        `cmd:"" help:"Show the resolved configuration or its JSON Schema; lay out the configuration files (fmt)."`
	Attachment   AttachmentCmd    `cmd:"" aliases:"a,attachments" help:"Add, remove, list and preview the active conversation's attachments."`
	AA           AttachmentAddCmd `cmd:"" name:"aa" hidden:"" help:"Short for jp attachment add."`
	Plugin       PluginCmd        `cmd:"" help:"List command plugins (jp plugin ls); run one as jp <command>."`
	MCP          McpCmd           `cmd:"" name:"mcp" help:"List the configured MCP servers and check that they start."`
	Model        ModelCmd         `cmd:"" help:"List the models of the configured providers (jp model ls)."`
	Help         HelpCmd          `cmd:"" help:"Show help for jp or for a command (jp help conversation fork)."`
	VersionCmd   VersionCmd       `cmd:"" name:"version" help:"Print jp's version, commit and Go version."`
	Completion   CompletionCmd    `cmd:"" help:"Print the shell completion script: jp completion bash|zsh|fish (docs/completion.md)."`
}

// FormatFlag selects text or JSON output on listing commands.
type FormatFlag struct {
	Format string `enum:"text,json" default:"text" help:"Output format: text or json."`
}

// JSON reports whether JSON output was asked for.
func (f FormatFlag) JSON() bool { return f.Format == "json" }
