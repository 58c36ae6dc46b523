package ports

import (
	"context"

	"github.com/jpcli/jp/domain/config"
)

// ConfigSource says where each configuration layer comes from (SPEC section
// 4; docs/configuration.md). Layers, lowest first: built-in defaults,
// <UserConfigDir>/config.toml, <WorkspaceRoot>/.jp/config.toml, .jp.toml
// from WorkspaceRoot down to LaunchDir, JP_CFG_* variables of Env, the
// Conversation layers (as in the Rust jp, between the environment and the
// command line), then Overrides.
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
	// Conversation is the configuration of the conversation a command
	// works on, lowest first: its base_config.json, then its config_delta
	// events in order. Keys this jp cannot read in them are left out with
	// a warning (as the Rust jp tolerates them), never an error.
	Conversation []ConfigLayer
	// Overrides are the --cfg key.path=value flags, in order.
	Overrides []string
	// EditorConfig is the TOML the user left in the configuration block
	// of jp q's editor preamble (the Rust jp's "Active Configuration"):
	// applied after Overrides, as part of the command line, so that
	// config.Resolved.CommandLine holds what it changed.
	EditorConfig string
	// AskTrust says the caller asks the user whether to trust the
	// checkout when its keys that run or send were held back
	// (config.Resolved.Trust): the loader then does not print its
	// one-line notice.
	AskTrust bool
}

// ConfigLayer is one layer of configuration given as a JSON object in the
// configuration's key spelling: a conversation's base_config.json, or the
// delta of one of its config_delta events.
type ConfigLayer struct {
	// Source names the layer in errors and in config.Resolved.Sources.
	Source string
	JSON   []byte
	// Checkout says the layer is text the checkout holds (a conversation
	// stored in its .jp/conversations, which a repository can commit):
	// its keys that run programs or send data wait for trust as the
	// checkout's own files' do.
	Checkout bool
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

// WorkspaceTrust is the user's record of the checkouts they trust: a
// checkout's real path with the hash of its configuration keys that run
// programs or send data (config.TrustReview). It lives with the user's
// data, never in a checkout.
type WorkspaceTrust interface {
	// Trusted reports whether root is trusted with exactly the keys that
	// hash to hash.
	Trusted(root, hash string) (bool, error)
	// Trust records root as trusted with the keys that hash to hash,
	// replacing what was recorded for it. The write is atomic.
	Trust(ctx context.Context, root, hash string) error
	// Revoke forgets root; it reports whether root was recorded.
	Revoke(ctx context.Context, root string) (bool, error)
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
	// Format lays file out the one way (jp config fmt), keeping its
	// comments and the order of its keys, and reports whether that
	// changed it; with check it writes nothing. The write is atomic. A
	// missing file is an error wrapping fs.ErrNotExist; a file that is not TOML is a
	// *config.SyntaxError and is left alone.
	Format(ctx context.Context, file string, check bool) (changed bool, err error)
	// Set is SetString for a value of any TOML type: a string, a bool,
	// an int64, a float64, or an array ([]any) of those.
	Set(ctx context.Context, file string, table []string, key string, value any) error
}
