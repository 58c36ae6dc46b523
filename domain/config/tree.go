package config

import (
	"fmt"
	"maps"
	"strings"
)

// A configuration tree is the generic form of a layer or of the resolved
// configuration: map[string]any whose values are tables
// (map[string]any), arrays ([]any) and TOML scalars (string, int64,
// float64, bool, date-times).

// Resolved is the result of loading the layered configuration.
type Resolved struct {
	// Config is the typed configuration, defaults included.
	Config Config
	// Tree is the same configuration as a tree, defaults included and
	// values normalised, for `jp config show` and the plugin read_config
	// request.
	Tree map[string]any
	// Sources names the layers that applied, lowest first: "built-in
	// defaults", file paths, "environment variable JP_CFG_X", "--cfg flag
	// \"k=v\"".
	Sources []string
	// Unsupported are the Rust jp's keys this jp read and ignored, in the
	// order met; jp config show marks them "not supported by this jp".
	Unsupported []UnsupportedKey
	// Trust is what the checkout's own files hold that runs or sends, and
	// whether it applied (the user trusts the checkout).
	Trust TrustReview
	// CommandLine holds the keys the command line's layers (--cfg and the
	// flags made into them) set to a value other than the one they had
	// below it (Changed): what a run records as its conversation's
	// config_delta. Nil when the command line changed nothing.
	CommandLine map[string]any
	// CommandLineValues holds every key the command line's layers set,
	// with the values as they gave them (validated), changed or not.
	CommandLineValues map[string]any
}

// Clone returns a deep copy of a tree.
func Clone(tree map[string]any) map[string]any {
	if tree == nil {
		return nil
	}
	out := make(map[string]any, len(tree))
	for k, v := range tree {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return Clone(v)
	case []any:
		return mapSlice(v, cloneValue)
	case []string:
		return append([]string(nil), v...)
	case map[string]string:
		return maps.Clone(v)
	}
	return v
}

// Merge deep-merges src into dst: tables merge key by key, any other value
// in src (arrays included) replaces dst's. Values are copied, so dst shares
// nothing with src afterwards.
func Merge(dst, src map[string]any) {
	for k, sv := range src {
		if st, ok := sv.(map[string]any); ok {
			if dt, ok := dst[k].(map[string]any); ok {
				Merge(dt, st)
				continue
			}
		}
		dst[k] = cloneValue(sv)
	}
}

// SplitPath splits a dot path into its keys. A key is either bare (any
// characters but '.' and '"') or double-quoted, with \" and \\ escapes, so
// that keys holding dots can be named: mcp.servers."my.server".command.
func SplitPath(path string) ([]string, error) {
	if path == "" {
		return nil, &KeyError{Key: `""`, Reason: "empty key path", Err: ErrInvalidValue}
	}
	var segs []string
	for i := 0; ; {
		var seg string
		if i < len(path) && path[i] == '"' {
			var b strings.Builder
			j := i + 1
			for ; j < len(path) && path[j] != '"'; j++ {
				if path[j] == '\\' && j+1 < len(path) {
					j++
				}
				b.WriteByte(path[j])
			}
			if j >= len(path) {
				return nil, &KeyError{Key: path, Reason: "unterminated quoted key", Err: ErrInvalidValue}
			}
			seg, i = b.String(), j+1
			if i < len(path) && path[i] != '.' {
				return nil, &KeyError{Key: path, Reason: "expected '.' after a quoted key", Err: ErrInvalidValue}
			}
		} else {
			j := strings.IndexByte(path[i:], '.')
			if j < 0 {
				j = len(path) - i
			}
			seg = path[i : i+j]
			if seg == "" || strings.Contains(seg, `"`) {
				return nil, &KeyError{Key: path, Reason: "empty or malformed key in path", Err: ErrInvalidValue}
			}
			i += j
		}
		segs = append(segs, seg)
		if i == len(path) {
			return segs, nil
		}
		i++ // the '.'
		if i == len(path) {
			return nil, &KeyError{Key: path, Reason: "key path ends with '.'", Err: ErrInvalidValue}
		}
	}
}

// JoinPath joins keys into a dot path, quoting keys that are empty or hold
// characters other than ASCII letters, digits, '_' and '-'. SplitPath
// reverses it.
func JoinPath(keys ...string) string {
	return strings.Join(mapSlice(keys, func(k string) string {
		if isBareKey(k) {
			return k
		}
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(k) + `"`
	}), ".")
}

func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// Lookup returns a deep copy of the value at path in tree. The empty path
// returns the whole tree. A path the tree does not hold is a *KeyError
// wrapping ErrUnknownKey.
func Lookup(tree map[string]any, path string) (any, error) {
	if path == "" {
		return Clone(tree), nil
	}
	segs, err := SplitPath(path)
	if err != nil {
		return nil, err
	}
	var cur any = tree
	for i, seg := range segs {
		table, ok := cur.(map[string]any)
		if !ok {
			return nil, &KeyError{
				Key:    path,
				Reason: fmt.Sprintf("%s is %s, not a table", JoinPath(segs[:i]...), describeKind(cur)),
				Err:    ErrUnknownKey,
			}
		}
		if cur, ok = table[seg]; !ok {
			return nil, &KeyError{Key: path, Err: ErrUnknownKey}
		}
	}
	return cloneValue(cur), nil
}

// SetPath sets the value at path in tree, creating the tables on the way.
// A key on the way that holds a non-table value is an error.
func SetPath(tree map[string]any, path string, value any) error {
	segs, err := SplitPath(path)
	if err != nil {
		return err
	}
	cur := tree
	for i, seg := range segs[:len(segs)-1] {
		next, ok := cur[seg]
		if !ok {
			t := map[string]any{}
			cur[seg] = t
			cur = t
			continue
		}
		if cur, ok = next.(map[string]any); !ok {
			return &KeyError{
				Key:    path,
				Reason: fmt.Sprintf("%s is %s, not a table", JoinPath(segs[:i+1]...), describeKind(next)),
				Err:    ErrInvalidValue,
			}
		}
	}
	cur[segs[len(segs)-1]] = value
	return nil
}

// describeKind names the kind of a tree value for error messages.
func describeKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a table"
	case []any, []string:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, int:
		return "an integer"
	case float64:
		return "a float"
	}
	return "a value"
}
