package main

import (
	"fmt"
	"strings"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/internal/safetext"
)

// ConfigCmd is jp config.
type ConfigCmd struct {
	Show   ConfigShowCmd   `cmd:"" default:"withargs" help:"Print the resolved configuration (all layers merged), or the subtree at PATH. The default: bare jp config shows."`
	Schema ConfigSchemaCmd `cmd:"" help:"Print the JSON Schema of the configuration."`
	Fmt    ConfigFmtCmd    `cmd:"" help:"Lay out the configuration files the one way, keeping comments: the checkout's .jp/config.toml, the user's config.toml and the nearest .jp.toml."`
	Set    ConfigSetCmd    `cmd:"" help:"Set a key in a configuration file (the workspace's by default), or in a conversation's configuration (--id)."`
}

// ConfigFmtCmd is jp config fmt.
type ConfigFmtCmd struct {
	Check         bool `help:"Write nothing; fail on the first file that is not laid out."`
	All           bool `help:"Format all configuration files (the default; kept for the Rust jp's command line)."`
	UserWorkspace bool `help:"The user's per-workspace configuration (this jp has none: refused)."`
	UserGlobal    bool `help:"The user's config.toml only."`
	Cwd           bool `help:"The nearest .jp.toml, from the current directory up to the checkout's root, only."`
}

// Run formats the files, one line each.
func (c *ConfigFmtCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	t := app.FmtTargets{UserWorkspace: c.UserWorkspace, UserGlobal: c.UserGlobal, Cwd: c.Cwd}
	if c.All {
		t = app.FmtTargets{}
	}
	res, err := a.Config.Format(rt.Ctx, rt.configInput(), t, c.Check)
	for _, r := range res {
		switch {
		case c.Check:
			fmt.Fprintf(rt.Streams.Out, "Checked configuration file: %s\n", safetext.String(r.Path))
		case r.Changed:
			fmt.Fprintf(rt.Streams.Out, "Formatted configuration file: %s\n", safetext.String(r.Path))
		default:
			fmt.Fprintf(rt.Streams.Out, "Skipped formatted configuration file: %s\n", safetext.String(r.Path))
		}
	}
	return err
}

// ConfigSetCmd is jp config set: the Rust jp's (its values may also come
// from the global --cfg KEY=VALUE).
type ConfigSetCmd struct {
	Key   string `arg:"" optional:"" help:"Dot path of the key, e.g. assistant.model.id."`
	Value string `arg:"" optional:"" help:"The value, read as the key's type (a string, true/false, a number, or a TOML array)."`

	User          bool   `name:"user" aliases:"user-global" help:"Write to your own configuration file (<config>/config.toml)."`
	Cwd           bool   `name:"cwd" help:"Write to .jp.toml in the current directory."`
	UserWorkspace bool   `name:"user-workspace" aliases:"local" help:"The Rust jp's per-user workspace file (not supported by this jp)."`
	Conversation  string `short:"i" name:"id" aliases:"conversation" placeholder:"TARGET" predictor:"conversation" help:"Record the change in this conversation's configuration (a config_delta event) instead of a file."`
}

// Run sets the key.
func (c *ConfigSetCmd) Run(rt *Runtime) error {
	overrides := append([]string(nil), rt.Globals.Cfg...)
	switch {
	case c.Key != "" && c.Value == "" && !strings.Contains(c.Key, "="):
		return &app.UsageError{Msg: fmt.Sprintf("jp config set %s: give the value too, e.g. jp config set %s VALUE", c.Key, c.Key)}
	case c.Key != "" && c.Value == "":
		overrides = append(overrides, c.Key)
	case c.Key != "":
		overrides = append(overrides, c.Key+"="+c.Value)
	}
	if len(overrides) == 0 {
		return &app.UsageError{Msg: "jp config set: give KEY VALUE, e.g. jp config set assistant.model.id anthropic/claude-sonnet-4-5"}
	}
	n := 0
	for _, b := range []bool{c.User, c.Cwd, c.UserWorkspace, c.Conversation != ""} {
		if b {
			n++
		}
	}
	if n > 1 {
		return &app.UsageError{Msg: "--user, --cwd, --user-workspace and --id exclude each other: pick one place to write"}
	}
	if c.UserWorkspace {
		return &app.UsageError{Msg: "--user-workspace (--local) is not supported by this jp: it has no per-user workspace file; use --user or the workspace's"}
	}
	a, err := rt.App()
	if err != nil {
		return err
	}
	if c.Conversation != "" {
		res, err := a.Query.SetConversationConfig(rt.Ctx, app.ConversationConfigInput{
			Target: rt.Globals.Workspace, LaunchDir: rt.Paths.LaunchDir, Conversation: c.Conversation,
			Overrides: overrides, UserConfigDir: rt.Paths.ConfigDir, Environ: rt.Environ,
		})
		if err != nil {
			return err
		}
		if len(res.Changed) == 0 {
			fmt.Fprintf(rt.Streams.Out, "Conversation %s already has that configuration; nothing recorded\n", res.Conversation)
			return nil
		}
		fmt.Fprintf(rt.Streams.Out, "Set configuration in conversation %s\n", res.Conversation)
		return nil
	}
	file := app.ConfigTargetWorkspace
	switch {
	case c.User:
		file = app.ConfigTargetUser
	case c.Cwd:
		file = app.ConfigTargetCwd
	}
	path, err := a.Query.SetConfigFile(rt.Ctx, app.ConfigFileInput{
		Target: rt.Globals.Workspace, LaunchDir: rt.Paths.LaunchDir, File: file,
		Overrides: overrides, UserConfigDir: rt.Paths.ConfigDir, Environ: rt.Environ,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Set configuration in %s\n", safetext.String(path))
	return nil
}

// ConfigShowCmd is jp config show.
type ConfigShowCmd struct {
	Path     string `arg:"" optional:"" help:"Dot path of a key or table, e.g. interrupt.streaming."`
	Format   string `enum:"toml,json" default:"toml" help:"Output format: toml or json."`
	Resolved bool   `help:"Print what the model is sent for PATH: with assistant.system_prompt, the system prompt composed from it, assistant.instructions, AGENTS.md and .jp/instructions.md."`
	Reveal   bool   `help:"Show secrets (headers, env values, client secrets, tokens, keys) instead of <redacted>."`

	Conversation   string `short:"i" name:"id" aliases:"conversation" placeholder:"TARGET" predictor:"conversation" help:"Show the configuration this conversation's next turn uses (default: the one jp query continues)."`
	NoConversation bool   `name:"no-conversation" help:"Leave out the conversation's own configuration: the files, environment and --cfg alone."`
}

// Run prints the configuration.
func (c *ConfigShowCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	if c.Conversation != "" && c.NoConversation {
		return &app.UsageError{Msg: "--id and --no-conversation exclude each other"}
	}
	in := rt.configInput()
	in.WithConversation, in.Conversation = !c.NoConversation, c.Conversation
	var out []byte
	if c.Resolved {
		out, err = a.Config.ShowResolved(rt.Ctx, in, c.Path)
	} else {
		out, err = a.Config.Show(rt.Ctx, in, c.Path, c.Format, c.Reveal)
	}
	if err != nil {
		return err
	}
	_, err = rt.Streams.Out.Write(out)
	return err
}

// ConfigSchemaCmd is jp config schema.
type ConfigSchemaCmd struct{}

// Run prints the schema.
func (c *ConfigSchemaCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	out, err := a.Config.Schema()
	if err != nil {
		return err
	}
	_, err = rt.Streams.Out.Write(out)
	return err
}

// configSources are the configuration sources of the command line, for
// the commands that load a conversation's configuration.
func (rt *Runtime) configSources() app.ConfigSources {
	return app.ConfigSources{UserConfigDir: rt.Paths.ConfigDir, LaunchDir: rt.Paths.LaunchDir, Environ: rt.Environ, Overrides: rt.Globals.Cfg}
}

func (rt *Runtime) configInput() app.ConfigInput {
	return app.ConfigInput{
		Target: rt.Globals.Workspace, LaunchDir: rt.Paths.LaunchDir, UserConfigDir: rt.Paths.ConfigDir,
		Environ: rt.Environ, Overrides: rt.Globals.Cfg,
	}
}
