package tomlconfig

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/jpcli/jp/domain/config"
)

// envPrefix starts the name of an environment variable that sets a key.
const envPrefix = "JP_CFG_"

// layer is one single-key layer from the environment or a flag.
type layer struct {
	tree   map[string]any
	source string
}

// envLayers turns the JP_CFG_* variables of env into layers, one per
// variable, sorted by name (so a table variable applies before the
// variables of its keys). The key path is the name after the prefix,
// lowercased, with "__" between keys: JP_CFG_INTERRUPT__LOOP_COUNTDOWN__ACTION
// sets interrupt.loop_countdown.action. A name without "__" is first read
// in the Rust jp's spelling (resolveEnvWords): JP_CFG_ASSISTANT_MODEL_ID
// sets assistant.model.id.
func envLayers(env []string, root *node) ([]layer, error) {
	type pair struct{ name, value string }
	var vars []pair
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if ok && strings.HasPrefix(name, envPrefix) {
			vars = append(vars, pair{name, value})
		}
	}
	slices.SortStableFunc(vars, func(a, b pair) int { return strings.Compare(a.name, b.name) })

	layers := make([]layer, 0, len(vars))
	for _, v := range vars {
		source := "environment variable " + v.name
		rest := strings.ToLower(strings.TrimPrefix(v.name, envPrefix))
		segs := strings.Split(rest, "__")
		if !strings.Contains(rest, "__") {
			// The Rust jp's spelling: single underscores, read against
			// the schema (JP_CFG_ASSISTANT_MODEL_ID).
			if p := resolveEnvWords(strings.Split(rest, "_"), root); len(p) > 0 {
				segs = p
			}
		}
		if slices.Contains(segs, "") {
			return nil, &usageError{fmt.Sprintf(
				`environment variable %s does not name a key: write the key path after JP_CFG_ with "__" between keys, e.g. JP_CFG_QUERY__LOOP`, v.name)}
		}
		tree, err := singleKeyTree(segs, parseValue(v.value, root.at(segs)), source)
		if err != nil {
			return nil, err
		}
		layers = append(layers, layer{tree, source})
	}
	return layers, nil
}

// resolveEnvWords reads the words of a variable name in the Rust jp's
// spelling (JP_CFG_ASSISTANT_MODEL_ID: "_" both between and inside keys)
// as a key path of the schema at n, or nil when none fits. A table's own
// keys are tried longest first; a named entry (a tool's name) is the
// shortest run of words after which the rest still names a key, or all
// the words when none does.
func resolveEnvWords(words []string, n *node) []string {
	if len(words) == 0 {
		return []string{}
	}
	if n == nil {
		return nil
	}
	try := func(i int, c *node) []string {
		if c == nil {
			return nil
		}
		if rest := resolveEnvWords(words[i:], c); rest != nil {
			return append([]string{strings.Join(words[:i], "_")}, rest...)
		}
		return nil
	}
	if n.kind == kindTable {
		for i := len(words); i >= 1; i-- {
			if f := n.field(strings.Join(words[:i], "_")); f != nil {
				if p := try(i, f.node); p != nil {
					return p
				}
			}
		}
	}
	var entry *node
	switch {
	case n.kind == kindMap:
		entry = n.elem
	case n.kind == kindTable && n.rest != nil:
		entry = n.rest.node.elem
	default:
		return nil
	}
	for i := 1; i <= len(words); i++ {
		if p := try(i, entry); p != nil {
			return p
		}
	}
	return nil
}

// flagLayer turns one --cfg key.path=value flag into a layer.
func flagLayer(f string, root *node) (layer, error) {
	source := fmt.Sprintf("--cfg flag %q", f)
	key, value, _ := strings.Cut(f, "=")
	key = strings.TrimSpace(key)
	if key == "" {
		return layer{}, &usageError{fmt.Sprintf("invalid --cfg %q: expected key.path=value, e.g. --cfg query.loop=never, a TOML file, or a name under .jp/config", f)}
	}
	segs, err := config.SplitPath(key)
	if err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) {
			ke.Source = source
		}
		return layer{}, err
	}
	tree, err := singleKeyTree(segs, parseValue(strings.TrimSpace(value), root.at(segs)), source)
	if err != nil {
		return layer{}, err
	}
	return layer{tree, source}, nil
}

// singleKeyTree is a tree holding value at the key path segs.
func singleKeyTree(segs []string, value any, source string) (map[string]any, error) {
	tree := map[string]any{}
	if err := config.SetPath(tree, config.JoinPath(segs...), value); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return tree, nil
}

// parseValue reads the value of a variable or flag: as a TOML value
// (`10`, `true`, `["a", "b"]`, `{ action = "stop" }`, `"quoted"`) when it
// is one, else as the raw string. For a key whose type is string, a TOML
// value that is not a string is taken as the raw text instead, so
// --cfg assistant.model.id=123 sets "123".
func parseValue(text string, n *node) any {
	var m map[string]any
	if err := toml.Unmarshal([]byte("v = "+text), &m); err == nil && len(m) == 1 {
		if v, ok := m["v"]; ok {
			_, isString := v.(string)
			_, isTable := v.(map[string]any)
			if n != nil && n.kind == kindString && !isString && !(isTable && n.merge == mergeStrategy) {
				return text
			}
			return v
		}
	}
	return text
}

// usageError is a malformed variable or flag; it wraps
// config.ErrInvalidValue.
type usageError struct{ msg string }

// Error returns the message.
func (e *usageError) Error() string { return e.msg }

// Unwrap makes errors.Is(err, config.ErrInvalidValue) true.
func (e *usageError) Unwrap() error { return config.ErrInvalidValue }
