package tomlconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/internal/fuzzy"
	"github.com/jpcli/jp/ports"
)

// defaultLoadPath is searched by --cfg NAME in every workspace, before the
// directories of config_load_paths.
const defaultLoadPath = ".jp/config"

// loading is the state of one Load: the tree merged so far, the layers
// applied and the keys ignored.
type loading struct {
	root        *node
	src         ports.ConfigSource
	merged      map[string]any
	mg          *merger
	sources     []string
	unsupported []config.UnsupportedKey
	// trustAll applies the checkout's keys that run or send; otherwise
	// they are removed from each checkout layer before it applies.
	trustAll bool
	// held are those keys, met in the checkout's own files.
	held []config.HeldKey
	// parsed holds each file as parsed, by path, shared by the passes of
	// one Load: a trusted checkout is merged twice but read once.
	parsed map[string]map[string]any
	// cli, when set, also gets the keys of every layer applied (the
	// command line's), merged plainly: which keys the command line set.
	cli map[string]any
}

// read returns the file at path as parsed (nil when it does not exist),
// reading it once per Load; each call gets its own copy, since applying a
// layer changes its tree.
func (ld *loading) read(path string) (map[string]any, error) {
	tree, ok := ld.parsed[path]
	if !ok {
		var err error
		if tree, err = readFile(path); err != nil {
			return nil, err
		}
		ld.parsed[path] = tree
	}
	return config.Clone(tree), nil
}

// apply validates one layer and merges it.
// A layer from the checkout's own files (checkout) first has its keys
// that run or send held back, unless the checkout is trusted.
func (ld *loading) apply(tree map[string]any, source string, checkout bool) error {
	ld.unsupported = append(ld.unsupported, normalizeRust(tree, source)...)
	uns, err := validate(tree, ld.root, source)
	if err != nil {
		return err
	}
	ld.unsupported = append(ld.unsupported, uns...)
	if checkout {
		ld.held = append(ld.held, config.HoldBack(tree, source, !ld.trustAll)...)
	}
	if ld.cli != nil {
		config.Merge(ld.cli, tree)
	}
	ld.mg.merge(ld.merged, tree)
	ld.sources = append(ld.sources, source)
	return nil
}

// file applies the configuration file at path: first the files its
// extends key names with strategy "before" (the default), then the file,
// then those with strategy "after". A missing file is skipped unless
// required. stack holds the files extending this one, to refuse a cycle.
// checkout says the file is the checkout's own (or extended by one): its
// keys that run or send wait for trust; files it extends inherit that.
func (ld *loading) file(path string, required bool, stack []string, checkout bool) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("configuration file %s: %w", path, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if i := slices.Index(stack, abs); i >= 0 {
		return &usageError{fmt.Sprintf("configuration files extend each other in a cycle: %s; remove one of these extends",
			strings.Join(append(slices.Clone(stack[i:]), abs), " -> "))}
	}
	tree, err := ld.read(path)
	if err != nil {
		return err
	}
	if tree == nil {
		if required {
			return &usageError{fmt.Sprintf("configuration file %s does not exist", path)}
		}
		return nil
	}
	before, after, err := extendsOf(tree, path)
	if err != nil {
		return err
	}
	stack = append(slices.Clip(stack), abs)
	for _, e := range before {
		if err := ld.file(e, true, stack, checkout); err != nil {
			return err
		}
	}
	if err := ld.apply(tree, path, checkout); err != nil {
		return err
	}
	for _, e := range after {
		if err := ld.file(e, true, stack, checkout); err != nil {
			return err
		}
	}
	return nil
}

// extendsOf removes the extends key from tree and returns the files it
// names, relative to the directory of path: an array of paths or glob
// patterns ("**" crosses directories), each a string or a table
// { path, strategy = "before" | "after" }. A pattern matching nothing is no
// error; a plain path that does not exist is.
func extendsOf(tree map[string]any, path string) (before, after []string, err error) {
	raw, ok := tree["extends"]
	if !ok {
		return nil, nil, nil
	}
	delete(tree, "extends")
	bad := func(reason string) error {
		return &config.KeyError{Key: "extends", Source: path, Reason: reason, Err: config.ErrInvalidValue}
	}
	items, ok := raw.([]any)
	if !ok {
		if s, isStr := raw.(string); isStr {
			items = []any{s}
		} else {
			return nil, nil, bad("expected an array of paths, got " + describe(raw))
		}
	}
	dir := filepath.Dir(path)
	for i, it := range items {
		p, strategy := "", "before"
		switch it := it.(type) {
		case string:
			p = it
		case map[string]any:
			p, _ = it["path"].(string)
			if s, ok := it["strategy"].(string); ok {
				strategy = s
			}
			for k := range it {
				if k != "path" && k != "strategy" {
					return nil, nil, bad(fmt.Sprintf("unknown key %q at index %d: an entry is a path or { path, strategy }", k, i))
				}
			}
		}
		if p == "" {
			return nil, nil, bad(fmt.Sprintf("expected a path or { path, strategy } at index %d, got %s", i, describe(it)))
		}
		if strategy != "before" && strategy != "after" {
			return nil, nil, bad(fmt.Sprintf("expected strategy before or after at index %d, got %q", i, strategy))
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		files := []string{p}
		if strings.ContainsAny(p, "*?[{") {
			matches, err := doublestar.FilepathGlob(p, doublestar.WithFilesOnly())
			if err != nil {
				return nil, nil, bad(fmt.Sprintf("invalid pattern %q: %v", p, err))
			}
			files = slices.DeleteFunc(matches, func(m string) bool { return filepath.Ext(m) != ".toml" })
			slices.Sort(files)
		} else if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, bad(fmt.Sprintf("%s does not exist", p))
		}
		if strategy == "after" {
			after = append(after, files...)
		} else {
			before = append(before, files...)
		}
	}
	return before, after, nil
}

// findCfgFile resolves the argument of a --cfg without "=": a name under
// .jp/config or a directory of config_load_paths (with or without
// ".toml"), else a file path relative to the launch directory. An unknown
// name is an error suggesting the nearest name.
func (ld *loading) findCfgFile(arg string) (string, error) {
	name := strings.TrimSpace(arg)
	launch := ld.src.LaunchDir
	if launch == "" {
		launch, _ = os.Getwd()
	}
	asPath := name
	if !filepath.IsAbs(asPath) {
		asPath = filepath.Join(launch, name)
	}
	explicit := filepath.IsAbs(name) || strings.HasPrefix(name, "./") || strings.HasPrefix(name, "../")
	dirs := ld.loadDirs()
	if !explicit && name != "" {
		for _, d := range dirs {
			for _, c := range []string{filepath.Join(d, name), filepath.Join(d, name+".toml")} {
				if isFile(c) {
					return c, nil
				}
			}
		}
	}
	if isFile(asPath) {
		return asPath, nil
	}
	if explicit {
		return "", &usageError{fmt.Sprintf("invalid --cfg %q: no such configuration file %s", arg, asPath)}
	}
	rel := make([]string, 0, len(dirs))
	for _, d := range dirs {
		rel = append(rel, ld.relToRoot(d))
	}
	looked := "no workspace to look in"
	if len(rel) > 0 {
		looked = "looked in " + strings.Join(rel, ", ")
	}
	msg := fmt.Sprintf("invalid --cfg %q: expected key.path=value, a TOML file or a configuration name (%s)", arg, looked)
	names := cfgNames(dirs)
	if best := nearestName(strings.TrimSuffix(name, ".toml"), names); best != "" {
		msg += "; did you mean " + best + "?"
	} else if len(names) > 0 {
		if len(names) > 8 {
			names = append(names[:8], "...")
		}
		msg += "; the names are " + strings.Join(names, ", ")
	}
	return "", &usageError{msg}
}

// loadDirs are the directories --cfg NAME searches: .jp/config, then each
// of config_load_paths, relative to the workspace root.
func (ld *loading) loadDirs() []string {
	if ld.src.WorkspaceRoot == "" {
		return nil
	}
	paths := []string{defaultLoadPath}
	if lp, ok := ld.merged["config_load_paths"].([]any); ok {
		for _, p := range lp {
			if s, ok := p.(string); ok {
				paths = append(paths, s)
			}
		}
	}
	var dirs []string
	for _, p := range paths {
		d := p
		if !filepath.IsAbs(d) {
			d = filepath.Join(ld.src.WorkspaceRoot, p)
		}
		d = filepath.Clean(d)
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

func (ld *loading) relToRoot(d string) string {
	if r, err := filepath.Rel(ld.src.WorkspaceRoot, d); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return d
}

// cfgNames lists the names --cfg NAME accepts: every .toml file under
// dirs, relative to its directory, without the extension, sorted.
func cfgNames(dirs []string) []string {
	var names []string
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || filepath.Ext(p) != ".toml" {
				return nil
			}
			if r, err := filepath.Rel(d, p); err == nil {
				n := filepath.ToSlash(strings.TrimSuffix(r, ".toml"))
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
			return nil
		})
	}
	slices.Sort(names)
	return names
}

// nearestName is the name closest to want (by edit distance, or the one
// whose last element equals it), or "".
func nearestName(want string, names []string) string {
	best, bestDist := "", 3
	for _, n := range names {
		if filepath.Base(n) == want && n != want {
			return n
		}
		if d := fuzzy.Distance(want, n); d < bestDist && 2*d < len(n) {
			best, bestDist = n, d
		}
	}
	return best
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// normalizeRust rewrites the shapes the Rust jp writes for keys this jp
// has in another shape, in place, and returns the keys it drops:
//
//   - conversation.tools."*" (the Rust defaults) merges into
//     conversation.tools.defaults;
//   - mcp.servers."*" (defaults for every server) is dropped;
//   - conversation.attachments as a table other than a merge table
//     { value, strategy, ... } is dropped: this jp's key is a list of
//     paths; an entry as a { type = "file", path } table becomes its
//     path, other entry tables are dropped;
//   - assistant.model.parameters.reasoning as a { effort, exclude } table
//     becomes its effort (exclude is dropped);
//   - assistant.model.id and the providers.llm.aliases values as
//     { provider, name } tables become "provider/name";
//   - an instruction example as a { good, bad, reason } table (the Rust
//     contrast example) becomes the text the Rust jp renders for it;
//   - a tool's enable as "on"/"off"/"explicit"/"always" or a
//     { state, allow_toggle } table becomes true or false (the toggle
//     policy is dropped);
//   - a tool's command as a string is split at white space, and as a
//     { program, args, shell } table becomes [program, args...] (shell is
//     dropped: commands never run through a shell).
func normalizeRust(tree map[string]any, source string) []config.UnsupportedKey {
	var dropped []config.UnsupportedKey
	dropped = append(dropped, normalizeRustTools(tree, source)...)
	normalizeRustInstructions(tree)
	dropped = append(dropped, normalizeRustAttachments(tree, source)...)
	if servers, ok := lookupTable(tree, "mcp", "servers"); ok {
		if star, ok := servers["*"]; ok {
			delete(servers, "*")
			dropped = append(dropped, config.UnsupportedKey{Key: config.JoinPath("mcp", "servers", "*"), Source: source, Value: star})
		}
	}
	dropped = append(dropped, normalizeRustReasoning(tree, source)...)
	dropped = append(dropped, aliasRustProviders(tree, source)...)
	normalizeRustModelIDs(tree)
	return dropped
}

// normalizeRustTools: conversation.tools."*" becomes defaults, a tool's
// enable and command take this jp's forms, result = "skip" is dropped.
func normalizeRustTools(tree map[string]any, source string) []config.UnsupportedKey {
	var dropped []config.UnsupportedKey
	if tools, ok := lookupTable(tree, "conversation", "tools"); ok {
		if star, ok := tools["*"].(map[string]any); ok {
			delete(tools, "*")
			def, ok := tools["defaults"].(map[string]any)
			if !ok {
				def = map[string]any{}
				tools["defaults"] = def
			}
			for k, v := range star {
				if _, set := def[k]; !set {
					def[k] = v
				}
			}
		}
		for name, t := range tools {
			tt, ok := t.(map[string]any)
			if !ok {
				continue
			}
			dropped = append(dropped, normalizeEnable(tt, source, "conversation", "tools", name)...)
			// The Rust result mode skip (the result is not sent) has no
			// counterpart here: it is dropped with a warning.
			if tt["result"] == "skip" {
				delete(tt, "result")
				dropped = append(dropped, config.UnsupportedKey{
					Key: config.JoinPath("conversation", "tools", name, "result"), Source: source, Value: "skip"})
			}
			if name == "defaults" {
				continue
			}
			dropped = append(dropped, normalizeRustCommand(tt, source, name)...)
		}
	}
	return dropped
}

// normalizeRustCommand turns tool name's command into an array: a string
// split at white space, a { program, args, shell } table as
// [program, args...] (shell dropped); anything else is left for
// validation to report.
func normalizeRustCommand(tt map[string]any, source, name string) []config.UnsupportedKey {
	var dropped []config.UnsupportedKey
	switch cmd := tt["command"].(type) {
	case string:
		tt["command"] = stringsToAny(strings.Fields(cmd))
	case map[string]any:
		prog, okp := cmd["program"].(string)
		args, oka := cmd["args"].([]any)
		if _, has := cmd["args"]; !has {
			oka = true
		}
		extra := false
		for k := range cmd {
			extra = extra || (k != "program" && k != "args" && k != "shell")
		}
		if !okp || !oka || extra {
			return nil // left for validation to report
		}
		if sh, ok := cmd["shell"]; ok {
			dropped = append(dropped, config.UnsupportedKey{
				Key: config.JoinPath("conversation", "tools", name, "command", "shell"), Source: source, Value: sh})
		}
		tt["command"] = append([]any{prog}, args...)
	}
	return dropped
}

// normalizeRustInstructions renders the Rust contrast examples
// ({ good, bad, reason }) of assistant.instructions as text.
func normalizeRustInstructions(tree map[string]any) {
	if ins, ok := lookupArray(tree, "assistant", "instructions"); ok {
		for _, in := range ins {
			if it, ok := in.(map[string]any); ok {
				if ex, ok := it["examples"].([]any); ok {
					for i, e := range ex {
						if s, ok := contrastExample(e); ok {
							ex[i] = s
						}
					}
				}
			}
		}
	}
}

// normalizeRustAttachments: conversation.attachments as a merge table
// keeps its table (another table is dropped); an entry as a
// { type, path, params } table for a plain file is its path, others are
// dropped.
func normalizeRustAttachments(tree map[string]any, source string) []config.UnsupportedKey {
	var dropped []config.UnsupportedKey
	if conv, ok := lookupTable(tree, "conversation"); ok {
		// conversation.attachments as a merge table { value, strategy,
		// ... } keeps its table; any other table is dropped.
		list, in := conv, "attachments"
		if att, ok := conv["attachments"].(map[string]any); ok {
			if _, isMerge := att["value"]; isMerge {
				list, in = att, "value"
			} else {
				delete(conv, "attachments")
				dropped = append(dropped, config.UnsupportedKey{Key: config.JoinPath("conversation", "attachments"), Source: source, Value: att})
			}
		}
		// An entry as a { type, path, params } table: a plain file is its
		// path; other handlers and params are not acted on and dropped.
		if att, ok := list[in].([]any); ok {
			kept := att[:0]
			for i, a := range att {
				m, ok := a.(map[string]any)
				if !ok {
					kept = append(kept, a)
					continue
				}
				path, okp := m["path"].(string)
				typ, _ := m["type"].(string)
				_, params := m["params"]
				if okp && (typ == "" || typ == "file") && !params && len(m) <= 2 {
					kept = append(kept, path)
					continue
				}
				dropped = append(dropped, config.UnsupportedKey{
					Key: config.JoinPath("conversation", "attachments", strconv.Itoa(i)), Source: source, Value: a})
			}
			list[in] = kept
		}
	}
	return dropped
}

// normalizeRustReasoning: the Rust jp's reasoning table { effort, exclude }
// becomes its effort (medium when left out, as there); exclude is dropped.
func normalizeRustReasoning(tree map[string]any, source string) []config.UnsupportedKey {
	var dropped []config.UnsupportedKey
	if params, ok := lookupTable(tree, "assistant", "model", "parameters"); ok {
		// The Rust jp's reasoning table { effort, exclude }: effort is the
		// level (medium when left out, as there); exclude is not acted on.
		if r, ok := params["reasoning"].(map[string]any); ok {
			eff, has := r["effort"]
			if !has {
				eff = "medium"
			}
			extra := false
			for k, v := range r {
				switch k {
				case "effort":
				case "exclude":
					dropped = append(dropped, config.UnsupportedKey{
						Key: config.JoinPath("assistant", "model", "parameters", "reasoning", "exclude"), Source: source, Value: v})
				default:
					extra = true
				}
			}
			if !extra {
				params["reasoning"] = eff
			}
		}
	}
	return dropped
}

// normalizeRustModelIDs turns the { provider, name } model IDs of
// assistant.model.id and providers.llm.aliases into "provider/name".
func normalizeRustModelIDs(tree map[string]any) {
	if model, ok := lookupTable(tree, "assistant", "model"); ok {
		if id, ok := model["id"].(map[string]any); ok {
			if s, ok := modelIDString(id); ok {
				model["id"] = s
			}
		}
	}
	if aliases, ok := lookupTable(tree, "providers", "llm", "aliases"); ok {
		for k, v := range aliases {
			if m, ok := v.(map[string]any); ok {
				if s, ok := modelIDString(m); ok {
					aliases[k] = s
				}
			}
		}
	}
}

// modelIDString turns the Rust { provider, name } model ID into
// "provider/name".
func modelIDString(m map[string]any) (string, bool) {
	p, okp := m["provider"].(string)
	n, okn := m["name"].(string)
	if !okp || !okn || len(m) != 2 {
		return "", false
	}
	return p + "/" + n, true
}

// aliasRustProviders moves the Rust jp's homes of provider and MCP server
// settings to this jp's, before the checkout's keys that run or send are
// held back (so they wait for trust like their aliases):
//
//   - providers.llm.<p>.base_url and api_key_env go to providers.<p>;
//   - providers.mcp.<name> becomes mcp.servers.<name>: command and
//     arguments make its command; its other keys (checksum, optional,
//     startup_timeout_secs, variables) are dropped.
//
// Where this jp's home sets the same key in the same file, it wins and the
// Rust one is dropped (and so reported).
func aliasRustProviders(tree map[string]any, source string) []config.UnsupportedKey {
	var dropped []config.UnsupportedKey
	drop := func(v any, path ...string) {
		dropped = append(dropped, config.UnsupportedKey{Key: config.JoinPath(path...), Source: source, Value: v})
	}
	ensure := func(m map[string]any, k string) map[string]any {
		t, ok := m[k].(map[string]any)
		if !ok {
			t = map[string]any{}
			m[k] = t
		}
		return t
	}
	if llm, ok := lookupTable(tree, "providers", "llm"); ok {
		provs := tree["providers"].(map[string]any)
		for _, name := range sortedKeys(llm) {
			p, ok := llm[name].(map[string]any)
			if !ok || name == "aliases" || !config.KnownProvider(name) {
				continue
			}
			for _, k := range sortedKeys(p) {
				if k != "base_url" && k != "api_key_env" {
					continue
				}
				home := ensure(provs, name)
				if _, set := home[k]; set {
					drop(p[k], "providers", "llm", name, k)
				} else {
					home[k] = p[k]
				}
				delete(p, k)
			}
			if len(p) == 0 {
				delete(llm, name)
			}
		}
	}
	if pm, ok := lookupTable(tree, "providers", "mcp"); ok {
		for _, name := range sortedKeys(pm) {
			srv, ok := pm[name].(map[string]any)
			if !ok {
				continue
			}
			prog, okp := srv["command"].(string)
			args, oka := srv["arguments"].([]any)
			if _, has := srv["arguments"]; !has {
				oka = true
			}
			if !okp || !oka {
				continue // left as an ignored key
			}
			servers := ensure(ensure(tree, "mcp"), "servers")
			if _, set := servers[name]; set {
				drop(srv, "providers", "mcp", name)
				delete(pm, name)
				continue
			}
			for _, k := range sortedKeys(srv) {
				if k != "command" && k != "arguments" {
					drop(srv[k], "providers", "mcp", name, k)
				}
			}
			servers[name] = map[string]any{"command": append([]any{prog}, args...)}
			delete(pm, name)
		}
		if len(pm) == 0 {
			delete(tree["providers"].(map[string]any), "mcp")
		}
	}
	return dropped
}

// normalizeEnable rewrites a tool's Rust enable value to this jp's true
// or false: "on"/"always" are true, "off"/"explicit" false, and a
// { state, allow_toggle } table its state. The toggle policy ("explicit"
// is off unless named; "always" cannot be switched off) is not acted on
// and is returned as dropped enable.allow_toggle.
func normalizeEnable(tool map[string]any, source string, path ...string) []config.UnsupportedKey {
	toggle := func(v any) []config.UnsupportedKey {
		return []config.UnsupportedKey{{Key: config.JoinPath(append(path, "enable", "allow_toggle")...), Source: source, Value: v}}
	}
	switch e := tool["enable"].(type) {
	case string:
		switch e {
		case "on", "true":
			tool["enable"] = true
		case "off", "false":
			tool["enable"] = false
		case "explicit":
			tool["enable"] = false
			return toggle("if_named")
		case "always":
			tool["enable"] = true
			return toggle("never")
		}
	case map[string]any:
		st, ok := e["state"]
		if !ok {
			st = true
		}
		if _, isBool := st.(bool); !isBool {
			return nil
		}
		for k := range e {
			if k != "state" && k != "allow_toggle" {
				return nil // left for validation to report
			}
		}
		tool["enable"] = st
		if at, ok := e["allow_toggle"]; ok {
			return toggle(at)
		}
	}
	return nil
}

// contrastExample renders the Rust jp's contrast example { good, bad,
// reason } as its text; other values are left for validation.
func contrastExample(e any) (string, bool) {
	m, ok := e.(map[string]any)
	if !ok {
		return "", false
	}
	good, okg := m["good"].(string)
	bad, okb := m["bad"].(string)
	if !okg || !okb {
		return "", false
	}
	n := 2
	s := "Good: " + good + "\nBad: " + bad
	if r, ok := m["reason"].(string); ok {
		s += "\nReason: " + r
		n++
	}
	if len(m) != n {
		return "", false
	}
	return s, true
}

func lookupArray(tree map[string]any, keys ...string) ([]any, bool) {
	parent, ok := lookupTable(tree, keys[:len(keys)-1]...)
	if !ok {
		return nil, false
	}
	a, ok := parent[keys[len(keys)-1]].([]any)
	return a, ok
}

func lookupTable(tree map[string]any, keys ...string) (map[string]any, bool) {
	cur := tree
	for _, k := range keys {
		next, ok := cur[k].(map[string]any)
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// maxDroppedKeys bounds how many keys one conversation layer may lose
// before it is left out whole.
const maxDroppedKeys = 64

// jsonLayer applies a conversation's layer (base_config.json or a
// config_delta's delta). A key this jp cannot read in it (unknown, or of
// another shape) is left out and listed with the keys not supported by
// this jp, as the Rust jp tolerates schema changes in stored deltas; the
// rest applies. A layer that is not a JSON object is left out whole, with
// the same warning.
func (ld *loading) jsonLayer(ly ports.ConfigLayer) error {
	orig, err := jsonTree(ly.JSON)
	if err != nil {
		ld.unsupported = append(ld.unsupported, config.UnsupportedKey{Key: "(whole layer)", Source: ly.Source, Value: err.Error()})
		return nil
	}
	for range maxDroppedKeys {
		tree := config.Clone(orig)
		uns := normalizeRust(tree, ly.Source)
		more, err := validate(tree, ld.root, ly.Source)
		var ke *config.KeyError
		if errors.As(err, &ke) {
			segs, serr := config.SplitPath(ke.Key)
			v, lerr := config.Lookup(orig, ke.Key)
			if serr != nil || lerr != nil || !deletePath(orig, segs) {
				break
			}
			ld.unsupported = append(ld.unsupported, config.UnsupportedKey{Key: ke.Key, Source: ly.Source, Value: v})
			continue
		}
		if err != nil {
			return err
		}
		ld.unsupported = append(ld.unsupported, append(uns, more...)...)
		if ly.Checkout {
			ld.held = append(ld.held, config.HoldBack(tree, ly.Source, !ld.trustAll)...)
		}
		ld.mg.merge(ld.merged, tree)
		ld.sources = append(ld.sources, ly.Source)
		return nil
	}
	ld.unsupported = append(ld.unsupported, config.UnsupportedKey{Key: "(whole layer)", Source: ly.Source, Value: "left out: too many keys this jp cannot read"})
	return nil
}

// deletePath removes the key at segs from tree; it reports whether there
// was one.
func deletePath(tree map[string]any, segs []string) bool {
	for _, s := range segs[:len(segs)-1] {
		next, ok := tree[s].(map[string]any)
		if !ok {
			return false
		}
		tree = next
	}
	last := segs[len(segs)-1]
	if _, ok := tree[last]; !ok {
		return false
	}
	delete(tree, last)
	return true
}

// jsonTree parses a JSON object into a configuration tree of the types a
// TOML file gives: integers as int64, other numbers as float64.
func jsonTree(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	m, ok := tomlTypes(v).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return m, nil
}

func tomlTypes(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k) // null: not set (a partial configuration's None)
				continue
			}
			v[k] = tomlTypes(x)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = tomlTypes(x)
		}
		return v
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}
