package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/adapters/sysclock"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/schemadsl"
	"github.com/jpcli/jp/domain/workspace"
	jpwire "github.com/jpcli/jp/wire"
)

// QueryCmd is jp query (alias q).
type QueryCmd struct {
	Message      []string     `arg:"" optional:"" help:"The message. Without one, jp reads piped stdin, or composes in the terminal (seeded from the conversation's draft)."`
	Conversation string       `short:"i" name:"id" aliases:"conversation" placeholder:"ID" predictor:"conversation" help:"Continue this conversation (default: the one last active in this checkout); --conversation is the old name."`
	New          bool         `short:"n" help:"Start a new conversation."`
	Local        bool         `short:"l" help:"Start a new conversation kept only on this machine (never written into the checkout's .jp/)."`
	NoLocal      bool         `short:"L" name:"no-local" help:"Keep the new conversation in the checkout's .jp/ (the default; excludes --local)."`
	Tmp          optDuration  `name:"tmp" placeholder:"DURATION" help:"Start a temporary conversation: --tmp=DURATION keeps it until DURATION after it was created (30m, 2h, 7d), bare --tmp until it is no longer the active one; expired ones are removed when a jp q run ends (see docs/scripting.md)."`
	Model        string       `short:"m" placeholder:"PROVIDER/MODEL" predictor:"model" help:"Model to use, e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5, ollama/llama3.1, demo/echo."`
	Compact      optSpecs     `short:"k" placeholder:"SPEC" help:"Compact the conversation before the turn: bare, with conversation.compaction.rules; --compact=SPEC with an inline rule (e.g. r+t, s:..-3; see jp conversation compact)."`
	Edit         bool         `short:"e" help:"Compose in the editor even when a message is given (seeded with it)."`
	NoEdit       bool         `short:"E" name:"no-edit" help:"Never compose; fail if there is no message."`
	Format       string       `short:"F" enum:"text,json,text-pretty,json-pretty" default:"text" help:"Output: text, or json (JSON lines: start, delta, tool_call, tool_result, end; see docs/scripting.md); text-pretty and json-pretty are text and json."`
	Quiet        bool         `short:"q" help:"No chrome (status lines)."`
	Headless     string       `placeholder:"FILE" env:"JP_HEADLESS" help:"Answer prompts from a script file instead of the terminal (see docs/headless.md)."`
	MCPPrompt    string       `name:"mcp-prompt" placeholder:"SERVER/PROMPT" help:"Start the query from an MCP server's prompt; the words after it are the prompt's arguments as key=value."`
	Attach       []string     `short:"a" name:"attach" aliases:"attachment" sep:"none" placeholder:"PATH|cmd:COMMAND|URL|-" help:"Attach a file, a directory (honouring .gitignore), a glob, a command's output (cmd:COMMAND, run in the checkout), a URL, or stdin (-); it sticks to the conversation (conversation.attachments, read again each turn) except stdin and a path outside the checkout. Repeatable; see docs/attachments.md."`
	Param        []string     `short:"p" name:"param" sep:"none" placeholder:"KEY=VALUE" help:"Set a model parameter for this run (repeatable): max_tokens, temperature, top_p, stop, reasoning, tool_choice (assistant.model.parameters)."`
	Reasoning    string       `short:"r" placeholder:"LEVEL" help:"How much the model thinks: off, auto, low, medium, high, max, or a token budget."`
	NoReasoning  bool         `short:"R" name:"no-reasoning" help:"Turn reasoning off (--reasoning off)."`
	HideReason   bool         `name:"hide-reasoning" help:"Do not show the model's reasoning (it is still recorded)."`
	ToolChoice   string       `short:"u" name:"tool-choice" aliases:"tool-use" placeholder:"auto|none|required|NAME" help:"Whether the model must call a tool: auto, none, required, or a tool's name."`
	NoToolUse    bool         `short:"U" name:"no-tool-use" help:"The model must not call a tool (--tool-choice none)."`
	Tool         []string     `short:"t" name:"tool" aliases:"tools" sep:"none" placeholder:"NAME" help:"Offer this configured tool for this run (conversation.tools.NAME.enable=true); repeatable."`
	NoTools      bool         `short:"T" name:"no-tools" help:"Ask the model not to call any tool in this run (--tool-choice none)."`
	Title        string       `name:"title" placeholder:"TITLE" help:"Set the conversation's title (new, forked or continued); no title is generated."`
	NoTitle      bool         `name:"no-title" help:"Clear the conversation's title; no title is generated."`
	Label        []string     `name:"label" sep:"none" placeholder:"LABEL" help:"Add a label to the conversation (repeatable)."`
	HideTools    bool         `name:"hide-tool-calls" help:"Do not show tool calls and their results (they still run and are recorded)."`
	Fork         optCount     `name:"fork" placeholder:"N" help:"Fork the conversation (-i, or the active one) and ask in the fork; --fork=N keeps only its last N turns."`
	Quote        optTrueFalse `name:"quote" placeholder:"true|false" help:"Compose with the conversation's last answer quoted (> lines) to reply between them; --quote=false puts it in verbatim."`
	Template     bool         `short:"%" name:"template" help:"Read the message as a template: {{ name }} is replaced by template.values.name from the configuration."`
	Replay       bool         `name:"replay" help:"Drop the conversation's last turn and send its message again (with this run's flags and model); a message given goes before it, none opens the editor on it (-E sends it as it is)."`
	Mount        []string     `name:"mount" sep:"none" placeholder:"[TOOL:]NAME=PATH[:MODE]" help:"Mount a path outside the checkout for the tools (not supported by this jp yet)."`
	Auto         string       `name:"auto" enum:",read,edit,all,off" default:"" placeholder:"read|edit|all|off" help:"Run tools without asking for this run: read (read-only tools), edit (also file edits in the checkout), all (also commands in jp's sandbox), off; beats a tool's run = \"ask\", never \"ask!\" or \"deny\" (conversation.tools.auto; see docs/tools.md)."`
	Schema       string       `short:"s" placeholder:"SCHEMA" help:"Ask for structured output: the shorthand ('summary, age int, ?tags [string]'), a JSON Schema, or @FILE (a bare existing file path works too); the JSON answer alone is printed on stdout."`
	Loop         bool         `name:"loop" help:"Session mode: after each answer the composer opens again for the next message, until an empty message or Ctrl-D (query.loop = \"always\"; see docs/session.md)."`
}

// ChatCmd is jp chat: jp query --loop.
type ChatCmd struct {
	QueryCmd `embed:""`
}

// Run runs jp query in session mode.
func (c *ChatCmd) Run(rt *Runtime) error {
	c.Loop = true
	return c.QueryCmd.Run(rt)
}

// overrides turns the model-parameter flags into configuration overrides
// of assistant.model.parameters, after the --cfg ones (so they win).
func (c *QueryCmd) overrides(cfg []string) ([]string, error) {
	out := append([]string(nil), cfg...)
	const prefix = "assistant.model.parameters."
	for _, p := range c.Param {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, ". ") {
			return nil, &app.UsageError{Msg: fmt.Sprintf("--param %q: expected KEY=VALUE, e.g. --param max_tokens=4096 (keys: max_tokens, temperature, top_p, stop, reasoning, tool_choice)", p)}
		}
		out = append(out, prefix+k+"="+v)
	}
	if c.Reasoning != "" && c.NoReasoning {
		return nil, &app.UsageError{Msg: "--reasoning and --no-reasoning exclude each other"}
	}
	if c.Reasoning != "" {
		out = append(out, prefix+"reasoning="+c.Reasoning)
	}
	if c.NoReasoning {
		out = append(out, prefix+"reasoning=off")
	}
	if c.ToolChoice != "" && (c.NoToolUse || c.NoTools) {
		return nil, &app.UsageError{Msg: "--tool-choice (-u) and --no-tool-use (-U) or --no-tools (-T) exclude each other"}
	}
	if c.ToolChoice != "" {
		out = append(out, prefix+"tool_choice="+strconv.Quote(c.ToolChoice))
	}
	if c.NoToolUse || c.NoTools {
		out = append(out, prefix+`tool_choice="none"`)
	}
	for _, t := range c.Tool {
		t = strings.TrimSpace(t)
		if t == "" || strings.ContainsAny(t, ".=\"\n") {
			return nil, &app.UsageError{Msg: fmt.Sprintf("--tool %q: expected the name of a configured tool, e.g. --tool fs_read_file", t)}
		}
		out = append(out, config.JoinPath("conversation", "tools", t, "enable")+"=true")
	}
	return out, nil
}

// unsupported refuses, in one line, the Rust jp's query flags this jp
// accepts but cannot act on yet.
func (c *QueryCmd) unsupported() error {
	var flag string
	switch {
	case len(c.Mount) > 0:
		flag = "--mount (grant the path to the tool with [[conversation.tools.NAME.access.fs]] instead, docs/tools.md)"
	default:
		return nil
	}
	return &app.UsageError{Msg: flag + " is not supported by this jp yet"}
}

// flags reads --title, --label, --fork[=N], --quote and -% for the app.
func (c *QueryCmd) flags() (app.QueryFlags, error) {
	f := app.QueryFlags{Title: c.Title, NoTitle: c.NoTitle, Labels: c.Label, HideToolCalls: c.HideTools,
		Quote: c.Quote.Set, QuoteVerbatim: c.Quote.Value == "false", Template: c.Template, Replay: c.Replay}
	if c.Local && c.NoLocal {
		return f, &app.UsageError{Msg: "--local (-l) and --no-local (-L) exclude each other"}
	}
	if v := c.Quote.Value; v != "" && v != "true" && v != "false" {
		return f, &app.UsageError{Msg: fmt.Sprintf("--quote=%s: give true or false, or --quote alone", v)}
	}
	switch {
	case !c.Fork.Set:
	case c.Fork.Value == "":
		f.Fork = true
	default:
		n, err := strconv.Atoi(c.Fork.Value)
		if err != nil || n < 1 {
			return f, &app.UsageError{Msg: fmt.Sprintf("--fork=%s: expected a number of turns to keep (1 or more), or --fork alone for all", c.Fork.Value)}
		}
		f.Fork, f.ForkLast = true, n
	}
	return f, nil
}

// argMessage joins the message words. One word "@PATH" is the message
// read from that file (relative to the launch directory), as in the Rust
// jp; an "@" word among others is plain text.
func argMessage(words []string, launchDir string) (string, error) {
	if len(words) != 1 || !strings.HasPrefix(words[0], "@") || len(words[0]) == 1 {
		return strings.Join(words, " "), nil
	}
	path := words[0][1:]
	if !filepath.IsAbs(path) {
		path = filepath.Join(launchDir, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", &app.UsageError{Msg: fmt.Sprintf("%s: cannot read the message file: %v (write @PATH for a file, or quote the message with other words)", words[0], errors.Unwrap(err))}
	}
	return string(b), nil
}

// legacyCfgID keeps the old jp q -c ID working for one release: -c is
// now the global --cfg (as in the Rust jp) and -i picks the conversation.
// A value given with the short -c is read as a conversation when it is
// not key=value, not an existing file, not a name under .jp/config, and
// it resolves to a conversation (a whole ID or an unambiguous prefix);
// one line on stderr says to use -i. It returns the --cfg values left.
func (c *QueryCmd) legacyCfgID(rt *Runtime, a *jpwire.App) ([]string, error) {
	cfg := rt.Globals.Cfg
	if len(rt.Globals.shortCfg) == 0 || c.Conversation != "" {
		return cfg, nil
	}
	var loc workspace.Location
	opened := false
	out := make([]string, 0, len(cfg))
	short := slices.Clone(rt.Globals.shortCfg)
	for _, v := range cfg {
		i := slices.Index(short, v)
		if i < 0 || c.Conversation != "" || !looksLikeConversationArg(v) || rt.cfgNameOrFile(v, loc.Root) {
			out = append(out, v)
			continue
		}
		short = slices.Delete(short, i, i+1)
		if !opened {
			o, err := a.Workspaces.OpenOrDefault(rt.Ctx, rt.Globals.Workspace, rt.Paths.LaunchDir, false)
			if err != nil {
				return nil, err
			}
			loc, opened = o.Location, true
			if rt.cfgNameOrFile(v, loc.Root) {
				out = append(out, v)
				continue
			}
		}
		id, err := a.Conversations.Resolve(rt.Ctx, loc, v)
		if err != nil {
			out = append(out, v) // not a conversation: --cfg reports it
			continue
		}
		c.Conversation = string(id)
		fmt.Fprintf(rt.Streams.Err, "jp: -c is now --cfg (as in the Rust jp); took %s as the conversation this once: use jp q -i %s\n", v, v)
	}
	return out, nil
}

// looksLikeConversationArg reports whether v could be a conversation ID
// or prefix: digits only (never key=value, a path or a name).
func looksLikeConversationArg(v string) bool {
	v = strings.TrimSpace(v)
	return v != "" && strings.Trim(v, "0123456789") == ""
}

// cfgNameOrFile reports whether --cfg v names an existing file (from the
// launch directory) or a configuration under root's .jp/config.
func (rt *Runtime) cfgNameOrFile(v, root string) bool {
	p := v
	if !filepath.IsAbs(p) {
		p = filepath.Join(rt.Paths.LaunchDir, v)
	}
	if isRegular(p) {
		return true
	}
	if root == "" {
		return false
	}
	d := filepath.Join(root, ".jp", "config")
	return isRegular(filepath.Join(d, v)) || isRegular(filepath.Join(d, v+".toml"))
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// schema reads --schema: @FILE (or a bare path to an existing file) is
// read; its text, or the flag's, is the shorthand or a JSON Schema
// (schemadsl.Parse).
func (c *QueryCmd) schema(launchDir string) ([]byte, error) {
	if c.Schema == "" {
		return nil, nil
	}
	text := strings.TrimSpace(c.Schema)
	path, at := strings.CutPrefix(text, "@")
	if !filepath.IsAbs(path) {
		path = filepath.Join(launchDir, path)
	}
	if at || !strings.HasPrefix(text, "{") && isRegular(path) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, &app.UsageError{Msg: fmt.Sprintf("--schema %s: %v (give @FILE holding a schema, the shorthand, or the JSON itself)", c.Schema, errors.Unwrap(err))}
		}
		text = string(b)
	}
	out, err := schemadsl.Parse(text)
	if err != nil && strings.HasPrefix(strings.TrimSpace(text), "{") {
		return nil, &app.UsageError{Msg: fmt.Sprintf("--schema: not a JSON object (%v)", strings.TrimPrefix(err.Error(), "invalid JSON schema: "))}
	}
	if err != nil {
		return nil, &app.UsageError{Msg: fmt.Sprintf("--schema: %v (give the shorthand, e.g. 'summary, age int', a JSON Schema object, or @FILE)", err)}
	}
	var obj map[string]any
	if err := json.Unmarshal(out, &obj); err != nil || obj == nil {
		return nil, &app.UsageError{Msg: "--schema: not a JSON object (give a JSON Schema object, the shorthand, or @FILE)"}
	}
	return out, nil
}

// Run sends the message and runs the turn loop.
func (c *QueryCmd) Run(rt *Runtime) error {
	if err := c.unsupported(); err != nil {
		return err
	}
	format := strings.TrimSuffix(c.Format, "-pretty")
	rt.Front = FrontOptions{Format: format, Quiet: c.Quiet, Headless: c.Headless}
	msg, err := argMessage(c.Message, rt.Paths.LaunchDir)
	if err != nil {
		return err
	}
	tmp, tmpFor, err := parseTmp(c.Tmp.duration())
	if err != nil {
		return err
	}
	has := len(c.Message) > 0
	noPersist := rt.Globals.NoPersist || rt.Globals.NoPersistP
	msg, has, stdin, hasStdin, err := c.piped(rt, msg, has)
	if err != nil {
		return err
	}
	a, err := rt.App()
	if err != nil {
		return err
	}
	cfg, err := c.legacyCfgID(rt, a)
	if err != nil {
		return err
	}
	overrides, err := c.overrides(cfg)
	if err != nil {
		return err
	}
	flags, err := c.flags()
	flags.ToolArguments = rt.Globals.Verbose > 0
	if err != nil {
		return err
	}
	schema, err := c.schema(rt.Paths.LaunchDir)
	if err != nil {
		return err
	}
	if c.MCPPrompt != "" {
		if msg, err = mcpPromptMessage(rt, a, c.MCPPrompt, c.Message); err != nil {
			return err
		}
		has = true
	}
	if err := c.pickConversation(rt, a); err != nil {
		return err
	}
	compactSpec, err := compactFlag(c.Compact.Values)
	if err != nil {
		return err
	}
	q := a.Query
	if noPersist {
		q = q.InMemory(memstore.New(sysclock.New()))
	}
	_, err = q.Session(rt.Ctx, app.QueryInput{
		Target: rt.Globals.Workspace, LaunchDir: rt.Paths.LaunchDir,
		Message: msg, HasMessage: has,
		Conversation: c.Conversation, New: c.New, Local: c.Local, Model: c.Model,
		Tmp: tmp, TmpFor: tmpFor, NoPersist: noPersist,
		Edit: c.Edit, NoEdit: c.NoEdit, Schema: schema, HideReasoning: c.HideReason,
		Attach: c.Attach, Stdin: stdin, HasStdin: hasStdin,
		UserConfigDir: rt.Paths.ConfigDir, Environ: rt.Environ, Overrides: overrides,
		Flags:   flags,
		Compact: compactSpec,
		Auto:    c.Auto,
	}, c.Loop)
	return err
}

// piped reads stdin when it is not a terminal: the message when none is
// given (and -a - does not ask for it), else text attached before the
// message.
func (c *QueryCmd) piped(rt *Runtime, msg string, has bool) (string, bool, string, bool, error) {
	if isTerminal(rt.Streams.In) || rt.Streams.In == nil {
		return msg, has, "", false, nil
	}
	b, err := readStdin(rt.Streams.In, 64<<20)
	if err != nil {
		return "", false, "", false, fmt.Errorf("read stdin: %w", err)
	}
	s := strings.TrimRight(b, "\n")
	switch {
	case strings.TrimSpace(s) == "":
	case !has && c.MCPPrompt == "" && !slices.Contains(c.Attach, "-"):
		return s, true, "", false, nil
	default:
		// s and one newline: b's own bytes (readStdin ends it with one).
		return msg, has, b[:len(s)+1], true, nil
	}
	return msg, has, "", false, nil
}

// pickConversation replaces a picker (--id=?) with the conversation
// picked.
func (c *QueryCmd) pickConversation(rt *Runtime, a *jpwire.App) error {
	if _, ok := app.ParsePicker(c.Conversation); !ok {
		return nil
	}
	loc, err := rt.open(a)
	if err != nil {
		return err
	}
	c.Conversation, err = rt.target(a, loc, c.Conversation)
	return err
}

// parseTmp reads --tmp's DURATION: Go's form (90s, 30m, 2h30m) or a
// number of days or weeks (7d, 2w); 0s is a bare --tmp. "" is no --tmp.
func parseTmp(v string) (bool, time.Duration, error) {
	if v == "" {
		return false, 0, nil
	}
	s := strings.TrimSpace(v)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			if k, err := strconv.ParseUint(n, 10, 32); err == nil {
				return true, time.Duration(k) * unit, nil
			}
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return false, 0, &app.UsageError{Msg: fmt.Sprintf("--tmp=%s: not a duration: write e.g. --tmp=30m, --tmp=2h or --tmp=7d (or a bare --tmp)", v)}
	}
	return true, d, nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// readStdin reads at most limit bytes of piped input into one string,
// ended by a newline (added when the input has none): a file's size is
// known, so a 20 MB message is read into one buffer of its size (and the
// newline), without the copies of a growing buffer and of a conversion.
func readStdin(in io.Reader, limit int64) (string, error) {
	var sb strings.Builder
	if f, ok := in.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			sb.Grow(int(min(fi.Size(), limit)) + 1)
		}
	}
	_, err := io.Copy(&sb, io.LimitReader(in, limit))
	if s := sb.String(); s != "" && !strings.HasSuffix(s, "\n") {
		sb.WriteByte('\n') // into the byte Grow kept for it
	}
	return sb.String(), err
}
