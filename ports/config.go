package ports

import (
	"context"

	"github.com/jpcli/jp/domain/config"
)

// ConfigSource says where each configuration layer comes from (SPEC section
// 4; docs/configuration.md). Layers, lowest first: built-in defaults,
// <UserConfigDir>/config.toml, <WorkspaceRoot>/.jp/config.toml, .jp.toml
// from WorkspaceRoot down to LaunchDir, JP_CFG_* variables of Env, then
// Overrides.
type ConfigSource struct {
	// UserConfigDir is <config> = $XDG_CONFIG_HOME/jp; "" skips the user
	// layer.
	UserConfigDir string
	// WorkspaceRoot is the checkout root; "" outside a workspace, which
	// skips the workspace layer and every .jp.toml.
	WorkspaceRoot string
	// LaunchDir is where jp was started: the .jp.toml files in every
	// directory from WorkspaceRoot down to LaunchDir apply, outermost
	// first. "" (or a directory outside WorkspaceRoot) reads
	// WorkspaceRoot's .jp.toml only.
	LaunchDir string
	// Env holds KEY=VALUE pairs (os.Environ()); the JP_CFG_* ones apply.
	Env []string
	// Overrides are the --cfg key.path=value flags, in order.
	Overrides []string
}

// ConfigLoader resolves layered configuration. Implementations are safe for
// concurrent use.
type ConfigLoader interface {
	// Load reads, validates and merges every layer of src. An unknown key
	// or a value of the wrong type is a *config.KeyError naming the key and
	// its layer; a file that is not TOML is a *config.SyntaxError. Missing
	// files are skipped.
	Load(ctx context.Context, src ConfigSource) (config.Resolved, error)
	// Render prints a tree (or a subtree value from config.Lookup) as
	// "toml" or "json".
	Render(v any, format string) ([]byte, error)
	// Schema returns the JSON Schema (draft 2020-12) of the whole
	// configuration.
	Schema() ([]byte, error)
}

// ConfigEditor changes a configuration file in place, keeping the rest of
// it as written (comments, order, keys it does not touch).
type ConfigEditor interface {
	// SetString sets key = value (a TOML string) in the table named by
	// table (e.g. ["conversation", "tools", "fs_modify_file"]) of file,
	// creating the file, its directory and the table when missing. The
	// write is atomic. A file that is not TOML is a *config.SyntaxError
	// and is left alone.
	SetString(ctx context.Context, file string, table []string, key, value string) error
}
