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

	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/adapters/sysclock"
	"github.com/jpcli/jp/app"
)

// QueryCmd is jp query (alias q).
type QueryCmd struct {
	Message      []string `arg:"" optional:"" help:"The message. Without one, jp reads piped stdin, or composes in the terminal (seeded from the conversation's draft)."`
	Conversation string   `short:"c" name:"conversation" placeholder:"ID" predictor:"conversation" help:"Continue this conversation (default: the one last active in this checkout)."`
	New          bool     `help:"Start a new conversation."`
	Local        bool     `help:"Start a new conversation kept only on this machine (never written into the checkout's .jp/)."`
	Tmp          bool     `help:"Run a new conversation that is removed when the run ends (see docs/scripting.md)."`
	NoPersist    bool     `name:"no-persist" help:"Store nothing: the conversation lives in memory for this run only (see docs/scripting.md)."`
	Model        string   `placeholder:"PROVIDER/MODEL" predictor:"model" help:"Model to use, e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5, ollama/llama3.1, demo/echo."`
	Edit         bool     `short:"e" help:"Compose in the editor even when a message is given (seeded with it)."`
	NoEdit       bool     `short:"E" name:"no-edit" help:"Never compose; fail if there is no message."`
	Format       string   `enum:"text,json" default:"text" help:"Output: text, or json (JSON lines: start, delta, tool_call, tool_result, end; see docs/scripting.md)."`
	Quiet        bool     `short:"q" help:"No chrome (status lines)."`
	Headless     string   `placeholder:"FILE" env:"JP_HEADLESS" help:"Answer prompts from a script file instead of the terminal (see docs/headless.md)."`
	MCPPrompt    string   `name:"mcp-prompt" placeholder:"SERVER/PROMPT" help:"Start the query from an MCP server's prompt; the words after it are the prompt's arguments as key=value."`
	Attach       []string `short:"a" name:"attach" sep:"none" placeholder:"PATH|cmd:COMMAND|URL|-" help:"Attach a file, a directory (honouring .gitignore), a glob, a command's output (cmd:COMMAND, run in the checkout), an http(s) URL, or stdin (-). Repeatable; see docs/attachments.md."`
	Param        []string `short:"p" name:"param" sep:"none" placeholder:"KEY=VALUE" help:"Set a model parameter for this run (repeatable): max_tokens, temperature, top_p, stop, reasoning, tool_choice (assistant.model.parameters)."`
	Reasoning    string   `placeholder:"LEVEL" help:"How much the model thinks: off, auto, low, medium, high, max, or a token budget."`
	NoReasoning  bool     `name:"no-reasoning" help:"Turn reasoning off (--reasoning off)."`
	HideReason   bool     `name:"hide-reasoning" help:"Do not show the model's reasoning (it is still recorded)."`
	ToolChoice   string   `name:"tool-choice" placeholder:"auto|none|required|NAME" help:"Whether the model must call a tool: auto, none, required, or a tool's name."`
	Schema       string   `placeholder:"FILE|JSON" help:"Ask for structured output matching this JSON Schema (a file, or the JSON itself); the JSON answer alone is printed on stdout."`
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
	if c.ToolChoice != "" {
		out = append(out, prefix+"tool_choice="+strconv.Quote(c.ToolChoice))
	}
	return out, nil
}

// schema reads --schema: a file when one exists at that path, else the
// JSON itself.
func (c *QueryCmd) schema(launchDir string) ([]byte, error) {
	if c.Schema == "" {
		return nil, nil
	}
	text := strings.TrimSpace(c.Schema)
	if !strings.HasPrefix(text, "{") {
		path := text
		if !filepath.IsAbs(path) {
			path = filepath.Join(launchDir, path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, &app.UsageError{Msg: fmt.Sprintf("--schema %s: %v (give a file holding a JSON Schema, or the JSON itself)", c.Schema, errors.Unwrap(err))}
		}
		text = string(b)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(text), &obj); err != nil || obj == nil {
		return nil, &app.UsageError{Msg: fmt.Sprintf("--schema: not a JSON object (%v)", err)}
	}
	return []byte(text), nil
}

// Run sends the message and runs the turn loop.
func (c *QueryCmd) Run(rt *Runtime) error {
	rt.Front = FrontOptions{Format: c.Format, Quiet: c.Quiet, Headless: c.Headless}
	msg := strings.Join(c.Message, " ")
	has := len(c.Message) > 0
	var stdin string
	var hasStdin bool
	if !isTerminal(rt.Streams.In) && rt.Streams.In != nil {
		// Piped text is the message when none is given (and -a - does
		// not ask for it), else it is attached before the message.
		b, err := readStdin(rt.Streams.In, 64<<20)
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		s := strings.TrimRight(b, "\n")
		switch {
		case strings.TrimSpace(s) == "":
		case !has && c.MCPPrompt == "" && !slices.Contains(c.Attach, "-"):
			msg, has = s, true
		default:
			// s and one newline: b's own bytes (readStdin ends it with one).
			stdin, hasStdin = b[:len(s)+1], true
		}
	}
	overrides, err := c.overrides(rt.Globals.Cfg)
	if err != nil {
		return err
	}
	schema, err := c.schema(rt.Paths.LaunchDir)
	if err != nil {
		return err
	}
	a, err := rt.App()
	if err != nil {
		return err
	}
	if c.MCPPrompt != "" {
		if msg, err = mcpPromptMessage(rt, a, c.MCPPrompt, c.Message); err != nil {
			return err
		}
		has = true
	}
	if _, ok := app.ParsePicker(c.Conversation); ok {
		loc, err := rt.open(a)
		if err != nil {
			return err
		}
		if c.Conversation, err = rt.target(a, loc, c.Conversation); err != nil {
			return err
		}
	}
	q := a.Query
	if c.NoPersist {
		q = q.InMemory(memstore.New(sysclock.New()))
	}
	_, err = q.Run(rt.Ctx, app.QueryInput{
		Target: rt.Globals.Workspace, LaunchDir: rt.Paths.LaunchDir,
		Message: msg, HasMessage: has,
		Conversation: c.Conversation, New: c.New, Local: c.Local, Model: c.Model,
		Tmp: c.Tmp, NoPersist: c.NoPersist,
		Edit: c.Edit, NoEdit: c.NoEdit, Schema: schema, HideReasoning: c.HideReason,
		Attach: c.Attach, Stdin: stdin, HasStdin: hasStdin,
		UserConfigDir: rt.Paths.ConfigDir, Environ: rt.Environ, Overrides: overrides,
	})
	return err
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
