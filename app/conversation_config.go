package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// conversationLayers returns the configuration layers of conversation id
// (docs/configuration.md, "The conversation's configuration"): its
// base_config.json when the store keeps one, then the delta of each of
// its config_delta events, in order. A conversation with a copy in the
// checkout gives layers of the checkout's own, held back until trusted.
func conversationLayers(ctx context.Context, store ports.ConversationStore, loc workspace.Location, id conversation.ID) ([]ports.ConfigLayer, error) {
	if id == "" {
		return nil, nil
	}
	var evs []conversation.Event
	err := store.ScanEvents(ctx, loc, id, func(e conversation.Event) error {
		if e.IsConfigDelta() {
			evs = append(evs, e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return layersOf(ctx, store, loc, id, evs)
}

// layersOf is conversationLayers with the config_delta events already
// read (evs): base_config.json, then the deltas in order.
func layersOf(ctx context.Context, store ports.ConversationStore, loc workspace.Location, id conversation.ID, evs []conversation.Event) ([]ports.ConfigLayer, error) {
	var layers []ports.ConfigLayer
	checkout := false
	if cc, ok := store.(ports.ConversationConfigs); ok {
		b, inCheckout, err := cc.BaseConfig(ctx, loc, id)
		if err != nil {
			return nil, err
		}
		checkout = inCheckout && loc.Root != ""
		if len(b) > 0 {
			layers = append(layers, ports.ConfigLayer{Source: fmt.Sprintf("conversation %s base_config.json", id), JSON: b, Checkout: checkout})
		}
	}
	for i, d := range conversation.ConfigDeltas(evs) {
		layers = append(layers, ports.ConfigLayer{
			Source: fmt.Sprintf("conversation %s config_delta %d (%s)", id, i+1, d.Timestamp.UTC().Format(deltaTimeLayout)),
			JSON:   d.Delta, Checkout: checkout,
		})
	}
	return layers, nil
}

// readConversation reads conversation id's events once, for both its
// configuration layers (as conversationLayers) and its transcript (as
// Query.history): a turn on a long conversation scans it once. The caller
// holds the conversation's lock. An empty id has neither.
func (q *Query) readConversation(ctx context.Context, loc workspace.Location, id conversation.ID) ([]ports.ConfigLayer, *turn.Transcript, error) {
	if id == "" {
		return nil, nil, nil
	}
	var deltas []conversation.Event
	t, err := q.scanHistory(ctx, loc, id, func(e conversation.Event) {
		if e.IsConfigDelta() {
			deltas = append(deltas, keptDelta(e))
		}
	})
	if err != nil {
		return nil, nil, err
	}
	layers, err := layersOf(ctx, q.store, loc, id, deltas)
	if err != nil {
		return nil, nil, err
	}
	return layers, t, nil
}

// keptDelta is a copy of config_delta event e that shares no memory with
// it: what conversation.ConfigDeltas reads of it (scanHistory's events
// may be valid only during the call).
func keptDelta(e conversation.Event) conversation.Event {
	return conversation.Event{
		Type: e.Type, Kind: strings.Clone(e.Kind), ID: strings.Clone(e.ID), Timestamp: e.Timestamp,
		Delta: bytes.Clone(e.Delta), Raw: bytes.Clone(e.Raw),
	}
}

// conversationConfig loads the configuration a turn of conversation id
// would use (every layer, the conversation's own base_config.json and
// config_delta events included), for the commands that act on one
// conversation outside a query (jp c compact, jp c title --generate).
func (q *Query) conversationConfig(ctx context.Context, loc workspace.Location, id conversation.ID, in ConfigSources) (config.Resolved, error) {
	layers, err := conversationLayers(ctx, q.store, loc, id)
	if err != nil {
		return config.Resolved{}, userNotFound(err)
	}
	return q.config.Load(ctx, ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: loc.Root, LaunchDir: in.LaunchDir,
		Env: in.Environ, Conversation: layers, Overrides: in.Overrides,
	})
}

// ConfigSources are where a command outside jp query reads the
// configuration from, besides the checkout and the conversation: the
// user's configuration directory, the launch directory (its .jp.toml
// files), the environment (JP_CFG_*) and --cfg (CompactInput,
// TitleInput).
type ConfigSources struct {
	UserConfigDir string
	LaunchDir     string
	Environ       []string
	Overrides     []string
}

// configDeltaEvent makes the config_delta event recording changes (the
// keys a command line changed: config.Resolved.CommandLine), or ok false
// when there are none.
func configDeltaEvent(ids ports.IDGenerator, clock ports.Clock, changes map[string]any) (conversation.Event, bool, error) {
	if len(changes) == 0 {
		return conversation.Event{}, false, nil
	}
	b, err := json.Marshal(config.RustDeltaShape(changes))
	if err != nil {
		return conversation.Event{}, false, fmt.Errorf("record the configuration change: %w", err)
	}
	ev, err := conversation.NewConfigDelta(ids.NewID(), clock.Now().UTC(), b)
	if err != nil {
		return conversation.Event{}, false, err
	}
	return ev, true, nil
}

// recordConfigDelta appends to the run's conversation the keys its
// command line changed (before the turn's events, as the Rust jp does).
func (q *Query) recordConfigDelta(ctx context.Context, rs *runState, changes map[string]any) error {
	if m, ok := changes["assistant"].(map[string]any); ok {
		if mm, ok := m["model"].(map[string]any); ok {
			if _, ok := mm["id"]; ok && rs.model.Provider != "" {
				// The model the run resolved (an alias made concrete).
				changes = config.Clone(changes)
				changes["assistant"].(map[string]any)["model"].(map[string]any)["id"] = rs.model.String()
			}
		}
	}
	changes, secret := config.WithoutSecrets(changes)
	if len(secret) > 0 {
		// Key names only, never values; names come from the command line.
		q.chromeLine(rs, safetext.String(fmt.Sprintf("Not recorded in the conversation (it never keeps a secret): %s; they apply to this run only.", strings.Join(secret, ", "))))
	}
	ev, ok, err := configDeltaEvent(q.ids, q.clock, changes)
	if err != nil || !ok {
		return err
	}
	if err := q.store.Append(ctx, rs.loc, rs.id, ev); err != nil {
		return err
	}
	q.keepTrustAfterDelta(ctx, rs.configSrc, rs.loc, rs.id, rs.trust, changes)
	return nil
}

// keepTrustAfterDelta keeps the checkout trusted after jp recorded the
// user's own change (delta) in a conversation: a conversation with a copy
// in the checkout has its configuration held like the checkout's files,
// so a change to a key that runs or sends (an attachment from -a or jp
// attachment add, an MCP server from --cfg) would otherwise untrust the
// checkout on the next run. Only exactly that is trusted: the checkout
// was trusted (or held nothing) before the change, and the keys held now
// are those held before plus the ones of the new config_delta. Anything
// else (a git pull meanwhile) is left for the user to review.
func (q *Query) keepTrustAfterDelta(ctx context.Context, src ports.ConfigSource, loc workspace.Location, id conversation.ID, before config.TrustReview, delta map[string]any) {
	if q.trust == nil || (!before.Trusted && len(before.Held) > 0) || len(config.HoldBack(config.Clone(delta), "", false)) == 0 {
		return
	}
	layers, err := conversationLayers(ctx, q.store, loc, id)
	if err != nil {
		return
	}
	src.Conversation, src.AskTrust = layers, true
	after, err := q.config.Load(ctx, src)
	if err != nil || after.Trust.Root == "" || after.Trust.Trusted || !onlyNewDelta(before.Held, after.Trust.Held) {
		return
	}
	_ = q.trust.Trust(ctx, after.Trust.Root, after.Trust.Hash)
}

// onlyNewDelta reports whether after holds the keys of before, and
// otherwise only keys of a conversation's config_delta.
func onlyNewDelta(before, after []config.HeldKey) bool {
	seen := map[string]int{}
	key := func(h config.HeldKey) string {
		b, _ := json.Marshal(h.Value)
		return h.Key + "\x00" + h.Source + "\x00" + string(b)
	}
	for _, h := range before {
		seen[key(h)]++
	}
	for _, h := range after {
		if k := key(h); seen[k] > 0 {
			seen[k]--
			continue
		}
		if !strings.Contains(h.Source, " config_delta ") {
			return false
		}
	}
	for _, n := range seen {
		if n > 0 {
			return false
		}
	}
	return true
}

// ConversationConfigInput is one change of a conversation's configuration
// (jp config set --conversation, jp attachment add).
type ConversationConfigInput struct {
	// Target and LaunchDir select the checkout (-w and the cwd).
	Target    string
	LaunchDir string
	// Conversation is the target (an ID, a prefix or a keyword); ""
	// is the active conversation.
	Conversation string
	// Overrides are key.path=value assignments (or --cfg files), applied
	// over the conversation's current configuration; the keys whose value
	// they change are recorded as one config_delta.
	Overrides []string
	// Config layers below the conversation's.
	UserConfigDir string
	Environ       []string
}

// ConversationConfigResult says what SetConversationConfig recorded.
type ConversationConfigResult struct {
	Conversation conversation.ID
	// Changed are the dot paths of the keys recorded; none when every
	// value was already the conversation's.
	Changed []string
}

// SetConversationConfig records, as one config_delta event of the
// conversation, the keys of in.Overrides whose value differs from the
// conversation's current configuration (its workspace layers, base
// configuration and earlier deltas). Values are validated first: a bad key
// or value is a one-line error and nothing is written. The conversation is
// locked while it is read and written.
func (q *Query) SetConversationConfig(ctx context.Context, in ConversationConfigInput) (ConversationConfigResult, error) {
	return q.setConversationConfig(ctx, in, nil)
}

// setConversationConfig is SetConversationConfig; before, when given, is
// the checkout's trust as the caller saw it before the change (else the
// trust of the configuration it loads).
func (q *Query) setConversationConfig(ctx context.Context, in ConversationConfigInput, before *config.TrustReview) (ConversationConfigResult, error) {
	if len(in.Overrides) == 0 {
		return ConversationConfigResult{}, &UsageError{Msg: "nothing to set: give key=value"}
	}
	loc, id, err := q.conversationOf(ctx, in)
	if err != nil {
		return ConversationConfigResult{}, err
	}
	if id == "" {
		return ConversationConfigResult{}, &UserError{Msg: "there is no active conversation to record the change in: give one with --id, or start one with jp query"}
	}
	release, err := q.lock(ctx, loc, id)
	if err != nil {
		return ConversationConfigResult{}, err
	}
	defer func() { _ = release() }()
	layers, err := conversationLayers(ctx, q.store, loc, id)
	if err != nil {
		return ConversationConfigResult{}, err
	}
	src := ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: loc.Root, LaunchDir: in.LaunchDir,
		Env: in.Environ, Conversation: layers, Overrides: in.Overrides, AskTrust: true,
	}
	res, err := q.config.Load(ctx, src)
	if err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) {
			return ConversationConfigResult{}, &UserError{Msg: err.Error() + "; nothing was written", Err: err}
		}
		return ConversationConfigResult{}, err
	}
	changes, secret := config.WithoutSecrets(res.CommandLine)
	if len(secret) > 0 {
		return ConversationConfigResult{}, &UsageError{Msg: safetext.String(fmt.Sprintf(
			"%s holds a secret, which a conversation never records (it may be committed): set it in a configuration file (jp config set --user); nothing was written", strings.Join(secret, ", ")))}
	}
	ev, ok, err := configDeltaEvent(q.ids, q.clock, changes)
	if err != nil || !ok {
		return ConversationConfigResult{Conversation: id}, err
	}
	if err := q.store.Append(ctx, loc, id, ev); err != nil {
		return ConversationConfigResult{Conversation: id}, err
	}
	if before == nil {
		before = &res.Trust
	}
	src.Overrides = nil
	q.keepTrustAfterDelta(ctx, src, loc, id, *before, changes)
	return ConversationConfigResult{Conversation: id, Changed: leafPaths("", changes)}, nil
}

// conversationOf opens in's checkout and resolves its conversation
// (in.Conversation, else the active one: "" when there is none).
func (q *Query) conversationOf(ctx context.Context, in ConversationConfigInput) (workspace.Location, conversation.ID, error) {
	opened, err := q.ws.OpenOrDefault(ctx, in.Target, in.LaunchDir, false)
	if err != nil {
		return workspace.Location{}, "", err
	}
	loc := opened.Location
	var id conversation.ID
	if in.Conversation != "" {
		id, err = resolveConversation(ctx, q.store, loc, in.Conversation)
	} else {
		id, err = activeConversation(ctx, q.store, loc)
	}
	return loc, id, err
}

// leafPaths lists the dot paths of a tree's leaves, sorted.
func leafPaths(prefix string, tree map[string]any) []string {
	var out []string
	for _, k := range sortedTreeKeys(tree) {
		p := config.JoinPath(k)
		if prefix != "" {
			p = prefix + "." + p
		}
		if sub, ok := tree[k].(map[string]any); ok && len(sub) > 0 {
			out = append(out, leafPaths(p, sub)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

func sortedTreeKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// modelOverride is --model as the override of assistant.model.id, so that
// it is recorded with the run's other configuration changes.
func modelOverride(model string) string { return "assistant.model.id=" + strconv.Quote(model) }

// Configuration files jp config set writes.
const (
	ConfigTargetWorkspace = "workspace" // <root>/.jp/config.toml (the default)
	ConfigTargetUser      = "user"      // <UserConfigDir>/config.toml
	ConfigTargetCwd       = "cwd"       // .jp.toml in the launch directory
)

// ConfigFileInput is one jp config set into a file.
type ConfigFileInput struct {
	Target    string
	LaunchDir string
	// File is one of the ConfigTarget* names.
	File string
	// Overrides are key.path=value assignments.
	Overrides     []string
	UserConfigDir string
	Environ       []string
}

// SetConfigFile writes the keys of in.Overrides into the configuration
// file in.File names, keeping the rest of it as written, and returns the
// file's path. Values are validated against the schema first: a bad key
// or value is a one-line error and nothing is written.
func (q *Query) SetConfigFile(ctx context.Context, in ConfigFileInput) (string, error) {
	if len(in.Overrides) == 0 {
		return "", &UsageError{Msg: "nothing to set: give KEY VALUE, e.g. jp config set assistant.model.id anthropic/claude-sonnet-4-5"}
	}
	if q.configFiles == nil {
		return "", errors.New("jp config set: no configuration editor")
	}
	res, root, err := resolveConfig(ctx, q.ws, q.config, ConfigInput{
		Target: in.Target, LaunchDir: in.LaunchDir, UserConfigDir: in.UserConfigDir,
		Environ: in.Environ, Overrides: in.Overrides, quietTrust: true,
	})
	if err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) {
			return "", &UserError{Msg: err.Error() + "; nothing was written", Err: err}
		}
		return "", err
	}
	var file string
	switch in.File {
	case ConfigTargetUser:
		if in.UserConfigDir == "" {
			return "", &UsageError{Msg: "--user: no user configuration directory (set XDG_CONFIG_HOME or HOME)"}
		}
		file = filepath.Join(in.UserConfigDir, "config.toml")
	case ConfigTargetWorkspace, ConfigTargetCwd:
		if root == "" {
			return "", &UsageError{Msg: "not in a jp workspace: use --user to set it in your own configuration, or jp init"}
		}
		file = filepath.Join(root, ".jp", "config.toml")
		if in.File == ConfigTargetCwd {
			file = filepath.Join(in.LaunchDir, ".jp.toml")
		}
	default:
		return "", &UsageError{Msg: fmt.Sprintf("unknown configuration file %q: use --user, --cwd or the workspace's (the default)", in.File)}
	}
	for _, leaf := range treeLeaves(nil, res.CommandLineValues) {
		if err := q.configFiles.Set(ctx, file, leaf.path[:len(leaf.path)-1], leaf.path[len(leaf.path)-1], leaf.value); err != nil {
			return "", err
		}
	}
	return file, nil
}

type treeLeaf struct {
	path  []string
	value any
}

// treeLeaves lists a tree's leaves (values that are not tables), sorted
// by path.
func treeLeaves(prefix []string, tree map[string]any) []treeLeaf {
	var out []treeLeaf
	for _, k := range sortedTreeKeys(tree) {
		p := append(slices.Clone(prefix), k)
		if sub, ok := tree[k].(map[string]any); ok {
			out = append(out, treeLeaves(p, sub)...)
			continue
		}
		out = append(out, treeLeaf{path: p, value: tree[k]})
	}
	return out
}

// deltaTimeLayout spells a config_delta's time in the source line of a
// setting it made: the Rust jp's timestamp form (UTC), as it was shown
// before the stored forms moved to adapters/eventcodec.
const deltaTimeLayout = "2006-01-02 15:04:05.000000"
