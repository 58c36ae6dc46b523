package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Config is the use case behind jp config show and jp config schema.
type Config struct {
	ws     *Workspaces
	loader ports.ConfigLoader
	editor ports.ConfigEditor
}

// NewConfig builds the use case.
func NewConfig(ws *Workspaces, loader ports.ConfigLoader, editor ports.ConfigEditor) *Config {
	return &Config{ws: ws, loader: loader, editor: editor}
}

// ConfigInput says which layers apply.
type ConfigInput struct {
	Target        string
	LaunchDir     string
	UserConfigDir string
	Environ       []string
	Overrides     []string
	// WithConversation adds a conversation's own layer (its
	// base_config.json and config_delta events, between the workspace and
	// the command line, as a turn applies them): the one Conversation
	// names (an ID, a prefix or a target keyword), else the one jp query
	// would continue. Without a conversation, or outside a workspace, the
	// files alone. jp config show sets it, so that what it prints is what
	// the next turn uses.
	WithConversation bool
	Conversation     string
	// quietTrust leaves out the loader's line about an untrusted
	// checkout: the caller reports it.
	quietTrust bool
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
	var layers []ports.ConfigLayer
	if in.WithConversation {
		if layers, err = conversationLayerOf(ctx, ws, f, in.Conversation); err != nil {
			return config.Resolved{}, "", err
		}
	}
	res, err := loader.Load(ctx, ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: root, LaunchDir: in.LaunchDir,
		Env: in.Environ, Conversation: layers, Overrides: in.Overrides, AskTrust: in.quietTrust,
	})
	return res, root, err
}

// conversationLayerOf is the layer of the conversation target names in
// the checkout f (the one jp query would continue when ""), nil when
// there is none to continue or no checkout.
func conversationLayerOf(ctx context.Context, ws *Workspaces, f ports.Found, target string) ([]ports.ConfigLayer, error) {
	if f.Root == "" {
		if target != "" {
			return nil, &UsageError{Msg: "--id: not in a jp workspace, so there is no conversation to read (run it in a checkout, or give -w)"}
		}
		return nil, nil
	}
	loc := workspace.Location{ID: f.ID, Root: f.Root}
	var id conversation.ID
	var err error
	if target != "" {
		id, err = resolveConversation(ctx, ws.store, loc, target)
	} else {
		id, err = activeConversation(ctx, ws.store, loc)
	}
	if err != nil {
		return nil, userNotFound(err)
	}
	return conversationLayers(ctx, ws.store, loc, id)
}

// Show renders the resolved configuration, or the subtree at path, as
// "toml" or "json". Secrets (header and env values, client secrets,
// tokens and keys: config.Redact) are shown as config.Redacted unless
// reveal.
func (c *Config) Show(ctx context.Context, in ConfigInput, path, format string, reveal bool) ([]byte, error) {
	res, err := c.Load(ctx, in)
	if err != nil {
		return nil, err
	}
	marks := unsupportedUnder(res.Unsupported, path)
	tree := res.Tree
	if !reveal {
		tree, _ = config.Redact(tree).(map[string]any)
		for i, k := range marks {
			marks[i].Value = redactAt(k.Key, k.Value)
		}
	}
	v, err := config.Lookup(tree, path)
	if err != nil {
		if len(marks) == 0 {
			return nil, &UserError{Msg: err.Error() + ": see jp config show for the keys", Err: err}
		}
		v = nil
	}
	var out []byte
	if v != nil {
		if out, err = c.loader.Render(v, format); err != nil {
			return nil, err
		}
	}
	if len(marks) == 0 {
		return out, nil
	}
	return c.markUnsupported(out, v, marks, format)
}

// redactAt redacts v as the value of the key at path: nested under its
// path, so that a value under headers or env, or a key named like a
// secret, is redacted as it would be in the whole tree.
func redactAt(path string, v any) any {
	segs, err := config.SplitPath(path)
	if err != nil || len(segs) == 0 {
		return config.Redact(v)
	}
	var wrapped any = v
	for i := len(segs) - 1; i >= 0; i-- {
		wrapped = map[string]any{segs[i]: wrapped}
	}
	out := config.Redact(wrapped)
	for _, s := range segs {
		m, ok := out.(map[string]any)
		if !ok {
			return config.Redacted
		}
		out = m[s]
	}
	return out
}

// NotSupported is the mark jp config show puts on the Rust jp's keys that
// this jp reads and ignores.
const NotSupported = "not supported by this jp"

// unsupportedUnder returns the ignored keys at or under path (every one
// for the empty path), and the one path lies under.
func unsupportedUnder(keys []config.UnsupportedKey, path string) []config.UnsupportedKey {
	var out []config.UnsupportedKey
	for _, k := range keys {
		if path == "" || k.Key == path || strings.HasPrefix(k.Key, path+".") || strings.HasPrefix(path, k.Key+".") {
			out = append(out, k)
		}
	}
	return out
}

// markUnsupported adds the ignored keys to a rendering: in TOML as
// comment lines after it ("# key = value  # not supported by this jp
// (source)"), in JSON under a top-level "not_supported_by_this_jp" object
// of key to { value, source } (the whole output is that object when path
// names only ignored keys).
func (c *Config) markUnsupported(out []byte, v any, marks []config.UnsupportedKey, format string) ([]byte, error) {
	if format == "json" {
		doc := map[string]any{}
		if m, ok := v.(map[string]any); ok {
			doc = m
		} else if v != nil {
			doc = map[string]any{"value": v}
		}
		ns := map[string]any{}
		for _, k := range marks {
			ns[k.Key] = map[string]any{"value": k.Value, "source": k.Source}
		}
		doc["not_supported_by_this_jp"] = ns
		return c.loader.Render(doc, "json")
	}
	var b strings.Builder
	b.Write(out)
	if len(out) > 0 && !strings.HasSuffix(string(out), "\n") {
		b.WriteString("\n")
	}
	if len(out) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("# Read but " + NotSupported + " (ignored):\n")
	for _, k := range marks {
		val, err := json.Marshal(k.Value)
		if err != nil {
			val = []byte("...")
		}
		fmt.Fprintf(&b, "# %s = %s  # %s (%s)\n", k.Key, val, NotSupported, k.Source)
	}
	return []byte(b.String()), nil
}

// SystemPromptPath is the key whose --resolved form is the composed
// system prompt.
const SystemPromptPath = "assistant.system_prompt"

// ShowResolved renders the value the model gets for path rather than the
// key's own value: for assistant.system_prompt, the composed system prompt
// (config.Config.SystemPrompt). Other keys have no resolved form.
func (c *Config) ShowResolved(ctx context.Context, in ConfigInput, path string) ([]byte, error) {
	if path != SystemPromptPath {
		return nil, &UsageError{Msg: "--resolved applies to " + SystemPromptPath + " only"}
	}
	res, err := c.Load(ctx, in)
	if err != nil {
		return nil, err
	}
	p := res.Config.SystemPrompt()
	if p == "" {
		return nil, nil
	}
	return []byte(p + "\n"), nil
}

// Schema returns the configuration's JSON Schema.
func (c *Config) Schema() ([]byte, error) { return c.loader.Schema() }
