package tomlconfig

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/samber/lo"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/internal/fuzzy"
)

// validate checks one layer's tree against the schema. The first problem,
// in key order, is a *config.KeyError naming the full key and the source.
// Keys of the Rust jp that this jp does not implement (config.Tolerated)
// are removed from tree and returned instead of rejected.
func validate(tree map[string]any, root *node, source string) ([]config.UnsupportedKey, error) {
	v := validator{source: source}
	err := v.value(tree, root, nil)
	return v.unsupported, err
}

type validator struct {
	source      string
	unsupported []config.UnsupportedKey
}

func (vd *validator) value(v any, n *node, path []string) error {
	if n.merge == mergeStrategy {
		if m, ok := v.(map[string]any); ok {
			return vd.mergeTable(m, n, path)
		}
	}
	switch n.kind {
	case kindTable, kindMap:
		m, ok := v.(map[string]any)
		if !ok {
			return vd.invalid(path, "expected a table, got "+describe(v))
		}
		return vd.table(m, n, path)
	case kindList:
		items, ok := v.([]any)
		if !ok {
			return vd.invalid(path, "expected an array, got "+describe(v))
		}
		return vd.list(items, n, path)
	}
	if reason := leafProblem(v, n); reason != "" {
		return vd.invalid(path, reason)
	}
	return nil
}

// invalid is the error for a value at path that is not what its key takes.
func (vd *validator) invalid(path []string, reason string) error {
	return &config.KeyError{Key: config.JoinPath(path...), Source: vd.source, Reason: reason, Err: config.ErrInvalidValue}
}

// table checks each key of a table or map in order: an unknown key is an
// error, unless it is a tolerated table, which is set aside as
// unsupported.
func (vd *validator) table(m map[string]any, n *node, path []string) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		sub := append(slices.Clip(path), k)
		child := n.child(k)
		if child == nil || (n.rest != nil && n.field(k) == nil && config.Tolerated(sub)) {
			if config.TolerableTable(sub, m[k]) {
				vd.unsupported = append(vd.unsupported, config.UnsupportedKey{Key: config.JoinPath(sub...), Source: vd.source, Value: m[k]})
				delete(m, k)
				continue
			}
			return unknownKey(n, sub, vd.source)
		}
		if err := vd.value(m[k], child, sub); err != nil {
			return err
		}
	}
	return nil
}

// list checks an array of tables (or of strings, where the element type
// takes a string).
func (vd *validator) list(items []any, n *node, path []string) error {
	_, strOK := reflect.New(n.elem.typ).Interface().(config.StringSetter)
	for i, it := range items {
		if _, isStr := it.(string); isStr && strOK {
			continue
		}
		if _, isTable := it.(map[string]any); !isTable {
			want := "a table"
			if strOK {
				want = "a string or a table"
			}
			return vd.invalid(path, fmt.Sprintf("expected %s at index %d, got %s", want, i, describe(it)))
		}
		if err := vd.value(it, n.elem, append(slices.Clip(path), strconv.Itoa(i))); err != nil {
			return err
		}
	}
	return nil
}

// leafProblem says what is wrong with v for a key that is not a table or
// a list ("" when nothing is).
func leafProblem(v any, n *node) string {
	switch n.kind {
	case kindAny:
		if _, ok := v.(map[string]any); !ok {
			return "expected a table, got " + describe(v)
		}
	case kindString:
		if _, ok := v.(string); !ok {
			return "expected a string, got " + describe(v)
		}
	case kindBool:
		if _, ok := v.(bool); !ok {
			return "expected true or false, got " + describe(v)
		}
	case kindInt:
		i, ok := v.(int64)
		if !ok {
			return "expected an integer, got " + describe(v)
		}
		if i < n.min {
			return fmt.Sprintf("expected an integer of at least %d, got %d", n.min, i)
		}
	case kindStrings:
		return stringsProblem(v)
	case kindEnum:
		probe := reflect.New(n.typ).Interface().(config.EnumSetter)
		if err := probe.SetConfigValue(v); err != nil {
			return fmt.Sprintf("expected one of %s, got %s", config.ExpectedValues(n.enum), describe(v))
		}
	case kindScalar:
		probe := reflect.New(n.typ).Interface().(config.EnumSetter)
		if err := probe.SetConfigValue(v); err != nil {
			return err.Error()
		}
	}
	return ""
}

// stringsProblem says what is wrong with v for an array of strings.
func stringsProblem(v any) string {
	items, ok := v.([]any)
	if !ok {
		return "expected an array of strings, got " + describe(v)
	}
	for i, it := range items {
		if _, ok := it.(string); !ok {
			return fmt.Sprintf("expected an array of strings, got %s at index %d", describe(it), i)
		}
	}
	return ""
}

// mergeTable checks a { value, strategy, ... } table given for a key with
// merge:"strategy".
func (vd *validator) mergeTable(m map[string]any, n *node, path []string) error {
	keys := mergeKeys(n)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		sub := append(slices.Clip(path), k)
		key := config.JoinPath(sub...)
		if !slices.Contains(keys, k) {
			return &config.KeyError{Key: key, Source: vd.source, Err: config.ErrUnknownKey,
				Hint: "a merge table has the keys " + strings.Join(keys, ", ")}
		}
		bad := func(reason string) error {
			return &config.KeyError{Key: key, Source: vd.source, Reason: reason, Err: config.ErrInvalidValue}
		}
		list := n.kind == kindList || n.kind == kindStrings
		switch {
		case k == "value":
			plain := *n
			plain.merge = mergeReplace
			if err := vd.value(m[k], &plain, sub); err != nil {
				return err
			}
		case k == "discard_when_merged", k == "dedup" && list:
			if _, ok := m[k].(bool); !ok {
				return bad("expected true or false, got " + describe(m[k]))
			}
		default: // strategy, separator, dedup
			allowed := mergeValues(n, k)
			if s, ok := m[k].(string); !ok || !slices.Contains(allowed, s) {
				return bad(fmt.Sprintf("expected one of %s, got %s", strings.Join(allowed, ", "), describe(m[k])))
			}
		}
	}
	if _, ok := m["value"]; !ok {
		return &config.KeyError{Key: config.JoinPath(path...), Source: vd.source, Err: config.ErrInvalidValue,
			Reason: `a merge table needs a value, e.g. { value = "...", strategy = "append" }`}
	}
	return nil
}

// unknownKey reports a key the table n does not have, suggesting the
// closest sibling when one is near.
func unknownKey(n *node, path []string, source string) error {
	e := &config.KeyError{Key: config.JoinPath(path...), Source: source, Err: config.ErrUnknownKey}
	key := path[len(path)-1]
	names := lo.Map(n.fields, func(f *field, _ int) string { return f.name })
	best, bestDist := "", 3
	for _, name := range names {
		if d := fuzzy.Distance(key, name); d < bestDist && 2*d < len(name) {
			best, bestDist = name, d
		}
	}
	switch {
	case best != "":
		e.Hint = "did you mean " + config.JoinPath(append(slices.Clone(path[:len(path)-1]), best)...) + "?"
	case n.kind == kindTable && len(names) > 0:
		e.Hint = "the keys of " + tableName(path[:len(path)-1]) + " are " + strings.Join(names, ", ")
	}
	return e
}

func tableName(path []string) string {
	if len(path) == 0 {
		return "the top level"
	}
	return "[" + config.JoinPath(path...) + "]"
}

// describe renders a tree value for an error message: strings quoted,
// numbers and booleans as written, tables and arrays by kind.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case bool, int64, float64:
		return fmt.Sprint(v)
	case map[string]any:
		return "a table"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%v", v)
}
