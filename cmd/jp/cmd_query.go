package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jpcli/jp/app"
)

// QueryCmd is jp query (alias q).
type QueryCmd struct {
	Message      []string `arg:"" optional:"" help:"The message. Without one, jp reads piped stdin, or composes in the terminal (seeded from the conversation's draft)."`
	Conversation string   `short:"c" name:"conversation" placeholder:"ID" help:"Continue this conversation (default: the one last active in this checkout)."`
	New          bool     `help:"Start a new conversation."`
	Local        bool     `help:"Start a new conversation kept only on this machine (never written into the checkout's .jp/)."`
	Model        string   `placeholder:"PROVIDER/MODEL" help:"Model to use, e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5, ollama/llama3.1, demo/echo."`
	Edit         bool     `short:"e" help:"Compose in the editor even when a message is given (seeded with it)."`
	NoEdit       bool     `short:"E" name:"no-edit" help:"Never compose; fail if there is no message."`
	Format       string   `enum:"text,json" default:"text" help:"Output: text, or json (one JSON object per event)."`
	Quiet        bool     `short:"q" help:"No chrome (status lines)."`
	Headless     string   `placeholder:"FILE" env:"JP_HEADLESS" help:"Answer prompts from a script file instead of the terminal (see docs/headless.md)."`
	MCPPrompt    string   `name:"mcp-prompt" placeholder:"SERVER/PROMPT" help:"Start the query from an MCP server's prompt; the words after it are the prompt's arguments as key=value."`
}

// Run sends the message and runs the turn loop.
func (c *QueryCmd) Run(rt *Runtime) error {
	rt.Front = FrontOptions{Format: c.Format, Quiet: c.Quiet, Headless: c.Headless}
	msg := strings.Join(c.Message, " ")
	has := len(c.Message) > 0
	if c.MCPPrompt == "" && !has && !isTerminal(rt.Streams.In) && rt.Streams.In != nil {
		b, err := io.ReadAll(io.LimitReader(rt.Streams.In, 64<<20))
		if err != nil {
			return fmt.Errorf("read message from stdin: %w", err)
		}
		if s := strings.TrimRight(string(b), "\n"); strings.TrimSpace(s) != "" {
			msg, has = s, true
		}
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
	_, err = a.Query.Run(rt.Ctx, app.QueryInput{
		Target: rt.Globals.Workspace, LaunchDir: rt.Paths.LaunchDir,
		Message: msg, HasMessage: has,
		Conversation: c.Conversation, New: c.New, Local: c.Local, Model: c.Model,
		Edit: c.Edit, NoEdit: c.NoEdit,
		UserConfigDir: rt.Paths.ConfigDir, Environ: rt.Environ, Overrides: rt.Globals.Cfg,
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
