package main

import (
	"fmt"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/internal/safetext"
)

// ConfigCmd is jp config.
type ConfigCmd struct {
	Show   ConfigShowCmd   `cmd:"" default:"withargs" help:"Print the resolved configuration (all layers merged), or the subtree at PATH. The default: bare jp config shows."`
	Schema ConfigSchemaCmd `cmd:"" help:"Print the JSON Schema of the configuration."`
	Fmt    ConfigFmtCmd    `cmd:"" help:"Lay out the configuration files the one way, keeping comments: the checkout's .jp/config.toml, the user's config.toml and the nearest .jp.toml."`
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

// ConfigShowCmd is jp config show.
type ConfigShowCmd struct {
	Path     string `arg:"" optional:"" help:"Dot path of a key or table, e.g. interrupt.streaming."`
	Format   string `enum:"toml,json" default:"toml" help:"Output format: toml or json."`
	Resolved bool   `help:"Print what the model is sent for PATH: with assistant.system_prompt, the system prompt composed from it, assistant.instructions, AGENTS.md and .jp/instructions.md."`
	Reveal   bool   `help:"Show secrets (headers, env values, client secrets, tokens, keys) instead of <redacted>."`
}

// Run prints the configuration.
func (c *ConfigShowCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	var out []byte
	if c.Resolved {
		out, err = a.Config.ShowResolved(rt.Ctx, rt.configInput(), c.Path)
	} else {
		out, err = a.Config.Show(rt.Ctx, rt.configInput(), c.Path, c.Format, c.Reveal)
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

func (rt *Runtime) configInput() app.ConfigInput {
	return app.ConfigInput{
		Target: rt.Globals.Workspace, LaunchDir: rt.Paths.LaunchDir, UserConfigDir: rt.Paths.ConfigDir,
		Environ: rt.Environ, Overrides: rt.Globals.Cfg,
	}
}
