package tomlconfig

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/samber/lo"

	"github.com/jpcli/jp/domain/config"
)

// validate checks one layer's tree against the schema. The first problem,
// in key order, is a *config.KeyError naming the full key and the source.
func validate(tree map[string]any, root *node, source string) error {
	return validateValue(tree, root, nil, source)
}

func validateValue(v any, n *node, path []string, source string) error {
	invalid := func(reason string) error {
		return &config.KeyError{Key: config.JoinPath(path...), Source: source, Reason: reason, Err: config.ErrInvalidValue}
	}
	switch n.kind {
	case kindTable, kindMap:
		m, ok := v.(map[string]any)
		if !ok {
			return invalid("expected a table, got " + describe(v))
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			sub := append(slices.Clip(path), k)
			child := n.child(k)
			if child == nil {
				return unknownKey(n, sub, source)
			}
			if err := validateValue(m[k], child, sub, source); err != nil {
				return err
			}
		}
	case kindAny:
		if _, ok := v.(map[string]any); !ok {
			return invalid("expected a table, got " + describe(v))
		}
	case kindString:
		if _, ok := v.(string); !ok {
			return invalid("expected a string, got " + describe(v))
		}
	case kindBool:
		if _, ok := v.(bool); !ok {
			return invalid("expected true or false, got " + describe(v))
		}
	case kindInt:
		i, ok := v.(int64)
		if !ok {
			return invalid("expected an integer, got " + describe(v))
		}
		if i < n.min {
			return invalid(fmt.Sprintf("expected an integer of at least %d, got %d", n.min, i))
		}
	case kindStrings:
		items, ok := v.([]any)
		if !ok {
			return invalid("expected an array of strings, got " + describe(v))
		}
		for i, it := range items {
			if _, ok := it.(string); !ok {
				return invalid(fmt.Sprintf("expected an array of strings, got %s at index %d", describe(it), i))
			}
		}
	case kindEnum:
		probe := reflect.New(n.typ).Interface().(config.EnumSetter)
		if err := probe.SetConfigValue(v); err != nil {
			return invalid(fmt.Sprintf("expected one of %s, got %s", config.ExpectedValues(n.enum), describe(v)))
		}
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
		if d := distance(key, name); d < bestDist && 2*d < len(name) {
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

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
