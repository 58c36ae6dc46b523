package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// HeldKey is one key of a checkout's own configuration files that runs a
// program or sends data somewhere, and so applies only once the user
// trusts the checkout (docs/security.md).
type HeldKey struct {
	// Key is the dot path, e.g. "mcp.servers.x" or
	// "conversation.attachments".
	Key string
	// Source is the file that set it.
	Source string
	// Does says in plain words what the key would make jp do, e.g.
	// `runs: sh -c "id"` or "sends $ANTHROPIC_API_KEY to http://x".
	Does string
	// Value is the key's value as written, for the trust hash.
	Value any
}

// TrustReview is what the loader found in a checkout's own configuration
// files that waits for the user's trust.
type TrustReview struct {
	// Root is the checkout's real path ("" outside a workspace).
	Root string
	// Held are the keys that run or send, in the order met.
	Held []HeldKey
	// Hash identifies Held: a change to any of those keys (a git pull)
	// changes it, and the checkout must be trusted again.
	Hash string
	// Trusted reports whether the user trusts Root with exactly these
	// keys: they were applied. False with Held non-empty: they were
	// ignored.
	Trusted bool
}

// Ignored reports whether keys were held back: the checkout is not
// trusted and its configuration holds keys that run or send.
func (r TrustReview) Ignored() bool { return !r.Trusted && len(r.Held) > 0 }

// Keys lists the held keys' paths, each once, in the order met.
func (r TrustReview) Keys() []string {
	var out []string
	for _, h := range r.Held {
		if !slices.Contains(out, h.Key) {
			out = append(out, h.Key)
		}
	}
	return out
}

// Notice is the one line saying that an untrusted checkout's keys that
// run or send were ignored, and how to trust it.
func (r TrustReview) Notice() string {
	keys := r.Keys()
	shown := keys
	if len(shown) > 4 {
		shown = append(slices.Clone(shown[:4]), "...")
	}
	n := len(keys)
	return fmt.Sprintf("jp: this checkout is not trusted, so %d configuration %s that %s programs or %s data %s ignored (%s); jp workspace trust --show lists what %s, jp workspace trust applies %s",
		n, Plural(n, "key", "keys"), Plural(n, "runs", "run"), Plural(n, "sends", "send"), Plural(n, "was", "were"),
		strings.Join(shown, ", "), Plural(n, "it does", "they do"), Plural(n, "it", "them"))
}

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// TrustHash is the hash of held keys: SHA-256 over their paths and values
// (sorted, as canonical JSON), "sha256:<hex>". The files they came from do
// not count, so moving a key between the checkout's files asks nothing.
func TrustHash(held []HeldKey) string {
	type entry struct {
		K string `json:"k"`
		V any    `json:"v"`
	}
	entries := make([]entry, 0, len(held))
	for _, h := range held {
		entries = append(entries, entry{h.Key, h.Value})
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return strings.Compare(a.K, b.K) })
	// encoding/json sorts map keys, so the encoding is canonical.
	b, err := json.Marshal(entries)
	if err != nil {
		b = fmt.Appendf(nil, "%v", entries)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// HoldBack finds the keys of one layer tree from a checkout's own files
// that run a program or send data somewhere (source names the file). With
// remove it deletes them from tree, so the rest of the layer applies
// without them. Keys that neither run nor send (the model, parameters,
// instructions, limits) are never held.
//
// Held: every configured attachment (conversation.attachments); every MCP
// server (mcp.servers.*); a tool's command, and run or result set to
// "unattended" (looser than asking), sandbox set to "off" and its access
// grants; conversation.tools.auto other than "off"; the editor; every provider's
// base_url, key variable and headers, and every provider table of the
// checkout's own; a plugin's run set to "unattended" and its secrets
// set to true; conversation.tools.git_commit (runs git commit) and a
// tool's allow_private (web_fetch reaching private addresses). A key added later
// that runs or sends belongs here too.
func HoldBack(tree map[string]any, source string, remove bool) []HeldKey {
	h := &holder{source: source, remove: remove}
	h.conversation(tree)
	if mcp, ok := tree["mcp"].(map[string]any); ok {
		if servers, ok := mcp["servers"].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(servers)) {
				h.hold(servers, name, JoinPath("mcp", "servers", name), describeMCP(name, servers[name]))
			}
		}
	}
	if _, ok := tree["editor"]; ok {
		ed, _ := tree["editor"].(map[string]any)
		h.hold(tree, "editor", "editor", "runs: "+describeCommand(ed["cmd"])+" (as the editor)")
	}
	h.providers(tree)
	h.plugins(tree)
	return h.held
}

// holder gathers the held keys of one layer tree (and removes them from
// it with remove).
type holder struct {
	held   []HeldKey
	source string
	remove bool
}

// hold holds parent's key, at path, saying what it does.
func (h *holder) hold(parent map[string]any, key, path, does string) {
	h.held = append(h.held, HeldKey{Key: path, Source: h.source, Does: does, Value: parent[key]})
	if h.remove {
		delete(parent, key)
	}
}

// conversation holds the attachments, tools.auto, tools.git_commit and
// each tool's keys that run or send.
func (h *holder) conversation(tree map[string]any) {
	if conv, ok := tree["conversation"].(map[string]any); ok {
		if v, ok := conv["attachments"]; ok {
			h.hold(conv, "attachments", "conversation.attachments", describeAttachments(v))
		}
		if tools, ok := conv["tools"].(map[string]any); ok {
			if s, ok := tools["auto"].(string); ok && s != AutoModeOff.String() {
				h.hold(tools, "auto", "conversation.tools.auto", "lets the model run "+s+" tools without asking")
			}
			if v, ok := tools["git_commit"].(string); ok && v != "off" {
				h.hold(tools, "git_commit", "conversation.tools.git_commit", "runs: git commit of the files jp's tools changed, at the end of each turn")
			}
			for _, name := range slices.Sorted(maps.Keys(tools)) {
				t, ok := tools[name].(map[string]any)
				if !ok {
					continue
				}
				h.tool(tools, name, t)
			}
		}
	}
}

// tool holds tool name's command, allow_private, unattended run or
// result, sandbox off and access grants.
func (h *holder) tool(tools map[string]any, name string, t map[string]any) {
	before := len(t)
	if v, ok := t["command"]; ok {
		h.hold(t, "command", JoinPath("conversation", "tools", name, "command"), "runs: "+describeCommand(v)+" (tool "+name+")")
	}
	if v, ok := t["allow_private"].(bool); ok && v {
		h.hold(t, "allow_private", JoinPath("conversation", "tools", name, "allow_private"), "lets tool "+name+" reach your machine and private network")
	}
	for _, k := range []string{"run", "result"} {
		if s, ok := t[k].(string); ok && s == "unattended" {
			what := "lets the model run tool " + name + " without asking"
			if name == "defaults" {
				what = "lets the model run every tool without asking"
			}
			if k == "result" {
				what = "sends tool " + name + "'s results to the model without asking"
			}
			h.hold(t, k, JoinPath("conversation", "tools", name, k), what)
		}
	}
	if s, ok := t["sandbox"].(string); ok && s == SandboxLevelOff.String() {
		h.hold(t, "sandbox", JoinPath("conversation", "tools", name, "sandbox"), "runs tool "+name+"'s commands outside jp's sandbox")
	}
	if _, ok := t["access"]; ok {
		h.hold(t, "access", JoinPath("conversation", "tools", name, "access"), "widens tool "+name+"'s sandbox (paths, network)")
	}
	// A table emptied by holding goes (with its command held,
	// an empty table would enable the built-in tool of that
	// name); one that was empty enables a built-in tool.
	if h.remove && len(t) == 0 && before > 0 {
		delete(tools, name)
	}
}

// providers holds every provider's base_url, key variable and headers,
// and every provider table of the checkout's own.
func (h *holder) providers(tree map[string]any) {
	if provs, ok := tree["providers"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(provs)) {
			p, ok := provs[name].(map[string]any)
			if !ok {
				continue
			}
			if _, known := knownProviders[name]; !known {
				h.hold(provs, name, JoinPath("providers", name), describeProvider(name, p))
				continue
			}
			url, _ := p["base_url"].(string) // before holding removes it
			for _, k := range slices.Sorted(maps.Keys(p)) {
				if k == "base_url" || k == "headers" || strings.HasSuffix(k, "_env") || k == "url" || k == "api_key" {
					h.hold(p, k, JoinPath("providers", name, k), describeProviderKey(name, k, url, p))
				}
			}
			if h.remove && len(p) == 0 {
				delete(provs, name)
			}
		}
	}
}

// plugins holds a command plugin's unattended run and its secrets.
func (h *holder) plugins(tree map[string]any) {
	if pl, ok := tree["plugins"].(map[string]any); ok {
		if cmds, ok := pl["command"].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(cmds)) {
				c, ok := cmds[name].(map[string]any)
				if !ok {
					continue
				}
				if s, ok := c["run"].(string); ok && s == "unattended" {
					h.hold(c, "run", JoinPath("plugins", "command", name, "run"), "lets plugin "+name+" run without asking")
				}
				if b, ok := c["secrets"].(bool); ok && b {
					h.hold(c, "secrets", JoinPath("plugins", "command", name, "secrets"), "hands your configuration's secrets to plugin "+name)
				}
			}
		}
	}
}

// knownProviders are the built-in provider tables (and llm, which holds
// only aliases); any other table under [providers] is a provider of the
// checkout's own and is held whole.
var knownProviders = map[string]struct{}{
	"openai": {}, "anthropic": {}, "ollama": {}, "google": {}, "openrouter": {},
	"llamacpp": {}, "cerebras": {}, "deepseek": {}, "demo": {}, "llm": {},
}

// describeCommand renders a command as written (a string, or an array of
// words, or a { program, args } table) on one line.
func describeCommand(v any) string {
	switch c := v.(type) {
	case string:
		return fmt.Sprintf("%q", c)
	case []any:
		words := make([]string, 0, len(c))
		for _, w := range c {
			words = append(words, fmt.Sprint(w))
		}
		return fmt.Sprintf("%q", strings.Join(words, " "))
	case map[string]any:
		words := []string{fmt.Sprint(c["program"])}
		if args, ok := c["args"].([]any); ok {
			for _, a := range args {
				words = append(words, fmt.Sprint(a))
			}
		}
		return fmt.Sprintf("%q", strings.Join(words, " "))
	case nil:
		return `""`
	}
	return fmt.Sprintf("%v", v)
}

func describeAttachments(v any) string {
	if m, ok := v.(map[string]any); ok && m["value"] != nil {
		v = m["value"] // a merge table { value, strategy, ... }
	}
	items, ok := v.([]any)
	if !ok {
		return fmt.Sprintf("attaches %v to every message", v)
	}
	parts := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			if m, isMap := it.(map[string]any); isMap {
				s = fmt.Sprint(m["path"])
			} else {
				s = fmt.Sprint(it)
			}
		}
		switch {
		case strings.HasPrefix(s, "cmd:"):
			parts = append(parts, "runs: "+fmt.Sprintf("%q", strings.TrimPrefix(s, "cmd:")))
		case strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://"):
			parts = append(parts, "fetches "+s)
		case strings.HasPrefix(s, "gh:"):
			parts = append(parts, "fetches "+s+" from GitHub with $JP_GITHUB_TOKEN or $GITHUB_TOKEN")
		default:
			parts = append(parts, "reads "+s)
		}
	}
	return strings.Join(parts, "; ") + " (attached to every message)"
}

func describeMCP(name string, v any) string {
	s, ok := v.(map[string]any)
	if !ok {
		return "MCP server " + name
	}
	if u, ok := s["url"].(string); ok && u != "" {
		out := "connects to " + (MCPServer{URL: u}).RedactedURL() + " (MCP server " + name + ")"
		if env, ok := s["bearer_token_env"].(string); ok && env != "" {
			out = "sends $" + env + " to " + (MCPServer{URL: u}).RedactedURL() + " (MCP server " + name + ")"
		}
		if _, ok := s["headers"]; ok {
			out += " with headers"
		}
		return out
	}
	return "runs: " + describeCommand(s["command"]) + " (MCP server " + name + ")"
}

func describeProvider(name string, p map[string]any) string {
	url, _ := p["base_url"].(string)
	env, _ := p["api_key_env"].(string)
	switch {
	case env != "" && url != "":
		return "sends $" + env + " to " + url + " (provider " + name + ")"
	case url != "":
		return "sends requests to " + url + " (provider " + name + ")"
	}
	return "defines provider " + name
}

func describeProviderKey(name, key, url string, p map[string]any) string {
	switch {
	case key == "base_url":
		return "sends " + name + " requests, with your " + name + " key, to " + url
	case key == "headers":
		return "adds headers to every " + name + " request"
	case strings.HasSuffix(key, "_env"):
		env, _ := p[key].(string)
		to := url
		if to == "" {
			to = name + "'s endpoint"
		}
		return "sends $" + env + " to " + to
	}
	return "sets providers." + name + "." + key
}

// KnownProvider reports whether name is a built-in provider table (not
// llm, which holds aliases).
func KnownProvider(name string) bool {
	_, ok := knownProviders[name]
	return ok && name != "llm"
}
