package tomlconfig

import (
	"reflect"
	"slices"
	"strings"

	"github.com/jpcli/jp/domain/config"
)

// merger merges validated layers into one tree, lowest first, following
// the schema: tables merge key by key, a key with merge:"append" appends
// arrays, a key with merge:"strategy" applies a { value, strategy, ... }
// table to the value below it, and any other value replaces.
type merger struct {
	root *node
	// discard holds the paths whose current value was set with
	// discard_when_merged = true: the next layer's value replaces it
	// whatever its strategy.
	discard map[string]bool
	// dedup holds the array paths whose merge table asked for dedup =
	// true: later layers inherit it unless they say dedup = false (the
	// Rust jp's vec_with_strategy).
	dedup map[string]bool
}

func newMerger(root *node) *merger {
	return &merger{root: root, discard: map[string]bool{}, dedup: map[string]bool{}}
}

// merge merges the layer src into dst.
func (mg *merger) merge(dst, src map[string]any) { mg.table(dst, src, mg.root, nil) }

func (mg *merger) table(dst, src map[string]any, n *node, path []string) {
	for _, k := range sortedKeys(src) {
		sv := src[k]
		var child *node
		if n != nil {
			child = n.child(k)
		}
		sub := append(slices.Clip(path), k)
		if child != nil && child.merge != mergeReplace {
			dst[k] = mg.value(dst[k], sv, child, config.JoinPath(sub...))
			continue
		}
		if st, ok := sv.(map[string]any); ok {
			dt, ok := dst[k].(map[string]any)
			if !ok {
				dt = map[string]any{}
				dst[k] = dt
			}
			if child != nil && child.kind != kindTable && child.kind != kindMap {
				child = nil
			}
			mg.table(dt, st, child, sub)
			continue
		}
		dst[k] = clone(sv)
	}
}

func clone(v any) any { return config.Clone(map[string]any{"v": v})["v"] }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// value merges next (one layer's value) onto prev (the layers' below) for
// a key whose merge mode is not replace.
func (mg *merger) value(prev, next any, n *node, path string) any {
	if n.merge == mergeAppend {
		p, okp := prev.([]any)
		x, okx := next.([]any)
		if !okp || !okx {
			return clone(next)
		}
		out := slices.Clone(p)
		for _, it := range x {
			if !slices.Contains(out, it) {
				out = append(out, it)
			}
		}
		return out
	}
	m, isTable := next.(map[string]any)
	if n.kind == kindList || n.kind == kindStrings {
		return mg.array(prev, next, m, isTable, n, path)
	}
	if !isTable {
		delete(mg.discard, path)
		return clone(next)
	}
	discardPrev := mg.discard[path]
	mg.discard[path], _ = m["discard_when_merged"].(bool)
	strategy, _ := m["strategy"].(string)
	value, _ := m["value"].(string)
	p, _ := prev.(string)
	if discardPrev {
		p = ""
	}
	sep := map[string]string{"none": "", "space": " ", "line": "\n", "paragraph": "\n\n"}
	separator, ok := sep[stringOr(m["separator"], "paragraph")]
	switch strategy {
	case "append_space", "append_line", "append_paragraph":
		if !ok || m["separator"] == nil {
			separator = sep[strings.TrimPrefix(strategy, "append_")]
		}
		strategy = "append"
	case "":
		strategy = "append"
	}
	switch {
	case strategy == "replace":
		return value
	case p == "":
		return value
	case value == "":
		return p
	case present(p, value, stringOr(m["dedup"], "block")):
		return p
	case strategy == "prepend":
		return value + separator + p
	}
	return p + separator + value
}

// array merges an array key's layer value next (a plain array, or the
// table m { value, strategy, dedup, discard_when_merged }) onto prev, as
// the Rust jp's vec_with_strategy does: a plain array appends, a table's
// strategy appends, prepends or replaces, a value set with
// discard_when_merged is replaced whatever the strategy, and dedup
// (inherited by later layers until one says dedup = false) keeps the
// first of equal items (n.dedup is the default: dedup:"true").
func (mg *merger) array(prev, next any, m map[string]any, isTable bool, n *node, path string) any {
	p, _ := prev.([]any)
	if mg.discard[path] {
		p = nil
	}
	delete(mg.discard, path)
	var items []any
	strategy := ""
	if isTable {
		items, _ = m["value"].([]any)
		strategy, _ = m["strategy"].(string)
		mg.discard[path], _ = m["discard_when_merged"].(bool)
		if d, ok := m["dedup"].(bool); ok {
			mg.dedup[path] = d
		}
	} else {
		items, _ = next.([]any)
	}
	items = clone(items).([]any)
	var out []any
	switch strategy {
	case "replace":
		out = items
	case "prepend":
		out = append(items, clone(p).([]any)...)
	default:
		out = append(clone(p).([]any), items...)
	}
	dedup, set := mg.dedup[path]
	if !set {
		dedup = n.dedup
	}
	if dedup {
		kept := out[:0]
		for i, it := range out {
			if !slices.ContainsFunc(out[:i], func(x any) bool { return reflect.DeepEqual(x, it) }) {
				kept = append(kept, it)
			}
		}
		out = kept
	}
	if out == nil {
		out = []any{}
	}
	return out
}

func stringOr(v any, def string) string {
	if s, ok := v.(string); ok {
		return s
	}
	return def
}

// present reports whether value is already part of acc under the dedup
// mode: off never, exact when equal, contains when a substring, block when
// it appears as whole lines (bounded by line breaks or the ends).
func present(acc, value, mode string) bool {
	switch mode {
	case "exact":
		return acc == value
	case "contains":
		return strings.Contains(acc, value)
	case "block":
		for i := 0; ; {
			j := strings.Index(acc[i:], value)
			if j < 0 {
				return false
			}
			start, end := i+j, i+j+len(value)
			if (start == 0 || strings.ContainsAny(acc[start-1:start], "\r\n")) &&
				(end == len(acc) || strings.ContainsAny(acc[end:end+1], "\r\n")) {
				return true
			}
			i = start + 1
		}
	}
	return false
}

// mergeKeys are the keys of a merge table for node n.
func mergeKeys(n *node) []string {
	if n.kind == kindList || n.kind == kindStrings {
		return []string{"value", "strategy", "discard_when_merged", "dedup"}
	}
	return []string{"value", "strategy", "separator", "discard_when_merged", "dedup"}
}

// mergeValues are the accepted values of the merge table key k for n.
func mergeValues(n *node, k string) []string {
	switch {
	case k == "strategy" && (n.kind == kindList || n.kind == kindStrings):
		return []string{"append", "prepend", "replace"}
	case k == "strategy":
		return []string{"append", "prepend", "replace", "append_space", "append_line", "append_paragraph"}
	case k == "separator":
		return []string{"none", "space", "line", "paragraph"}
	case k == "dedup":
		return []string{"off", "exact", "block", "contains"}
	}
	return nil
}
