package app

import (
	"context"
	"errors"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/ports"
)

// Config is the use case behind jp config show and jp config schema.
type Config struct {
	ws     *Workspaces
	loader ports.ConfigLoader
}

// NewConfig builds the use case.
func NewConfig(ws *Workspaces, loader ports.ConfigLoader) *Config {
	return &Config{ws: ws, loader: loader}
}

// ConfigInput says which layers apply.
type ConfigInput struct {
	Target        string
	LaunchDir     string
	UserConfigDir string
	Environ       []string
	Overrides     []string
}

// Load resolves the configuration for the selected workspace, or the user
// layers alone outside any workspace (an explicit -w must resolve). It
// writes nothing.
func (c *Config) Load(ctx context.Context, in ConfigInput) (config.Resolved, error) {
	res, _, err := resolveConfig(ctx, c.ws, c.loader, in)
	return res, err
}

// resolveConfig is Config.Load for the use cases that also need the
// selected checkout's root ("" outside any workspace).
func resolveConfig(ctx context.Context, ws *Workspaces, loader ports.ConfigLoader, in ConfigInput) (config.Resolved, string, error) {
	root := ""
	f, err := ws.Resolve(ctx, in.Target, in.LaunchDir)
	switch {
	case err == nil:
		root = f.Root
	case in.Target == "" && errors.Is(err, ports.ErrNoWorkspace):
	default:
		return config.Resolved{}, "", err
	}
	res, err := loader.Load(ctx, ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: root, LaunchDir: in.LaunchDir,
		Env: in.Environ, Overrides: in.Overrides,
	})
	return res, root, err
}

// Show renders the resolved configuration, or the subtree at path, as
// "toml" or "json".
func (c *Config) Show(ctx context.Context, in ConfigInput, path, format string) ([]byte, error) {
	res, err := c.Load(ctx, in)
	if err != nil {
		return nil, err
	}
	v, err := config.Lookup(res.Tree, path)
	if err != nil {
		return nil, &UserError{Msg: err.Error() + ": see jp config show for the keys", Err: err}
	}
	return c.loader.Render(v, format)
}

// Schema returns the configuration's JSON Schema.
func (c *Config) Schema() ([]byte, error) { return c.loader.Schema() }
