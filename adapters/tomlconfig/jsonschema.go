package tomlconfig

import (
	"reflect"
	"slices"

	"github.com/samber/lo"

	"github.com/jpcli/jp/domain/config"
)

// jsonSchemaDialect is the JSON Schema draft the published schema follows.
const jsonSchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// jsonSchema builds the JSON Schema of the configuration from the same node
// tree the loader validates with; def is the defaults tree.
func jsonSchema(root *node, def map[string]any) map[string]any {
	s := schemaOf(root, def)
	s["$schema"] = jsonSchemaDialect
	s["title"] = "jp configuration"
	s["description"] = "The layered TOML configuration of jp; see docs/configuration.md."
	return s
}

// schemaOf describes one node; def is its default value in tree form, or
// nil when it has none.
func schemaOf(n *node, def any) map[string]any {
	s := map[string]any{}
	if n.doc != "" {
		s["description"] = n.doc
	}
	switch n.kind {
	case kindTable:
		if def == nil && n.typ.Kind() == reflect.Pointer {
			// An optional table: its keys default as in a new one.
			def = newDefaults(n)
		}
		defs, _ := def.(map[string]any)
		props := map[string]any{}
		for _, f := range n.fields {
			props[f.name] = schemaOf(f.node, defs[f.name])
		}
		s["type"] = "object"
		s["properties"] = props
		s["additionalProperties"] = false
		if n.rest != nil {
			rest := schemaOf(n.rest.node.elem, elemDefaults(n.rest.node))
			if n.rest.node.doc != "" {
				rest["description"] = n.rest.node.doc
			}
			s["additionalProperties"] = rest
		}
	case kindMap:
		s["type"] = "object"
		s["additionalProperties"] = schemaOf(n.elem, elemDefaults(n))
	case kindAny:
		s["type"] = "object"
	case kindString:
		s["type"] = "string"
	case kindInt:
		s["type"] = "integer"
		s["minimum"] = n.min
	case kindBool:
		s["type"] = "boolean"
	case kindStrings:
		s["type"] = "array"
		s["items"] = map[string]any{"type": "string"}
	case kindList:
		item := schemaOf(n.elem, newDefaults(n.elem))
		if _, ok := reflect.New(n.elem.typ).Interface().(config.StringSetter); ok {
			item = map[string]any{"anyOf": []any{map[string]any{"type": "string"}, item}}
		}
		s["type"] = "array"
		s["items"] = item
	case kindScalar:
		for k, v := range reflect.Zero(n.typ).Interface().(config.Scalar).ScalarSchema() {
			s[k] = v
		}
	case kindEnum:
		vals := n.enum.EnumValues()
		s["enum"] = vals
		if types := lo.Uniq(lo.Map(vals, func(v any, _ int) string { return jsonType(v) })); len(types) == 1 {
			s["type"] = types[0]
		} else {
			slices.Sort(types)
			s["type"] = types
		}
	}
	if def != nil && n.kind != kindTable && n.kind != kindMap {
		s["default"] = def
	}
	if n.merge == mergeStrategy {
		s = mergeSchema(s, n)
	}
	return s
}

// mergeSchema accepts, besides the plain value of schema s, a
// { value, strategy, ... } merge table.
func mergeSchema(s map[string]any, n *node) map[string]any {
	plain := map[string]any{}
	for k, v := range s {
		if k != "description" && k != "default" {
			plain[k] = v
		}
	}
	props := map[string]any{"value": plain}
	for _, k := range mergeKeys(n) {
		switch k {
		case "value":
		case "discard_when_merged":
			props[k] = map[string]any{"type": "boolean"}
		case "dedup":
			if n.kind == kindList || n.kind == kindStrings {
				props[k] = map[string]any{"type": "boolean"} // an array's dedup is on or off
				break
			}
			props[k] = map[string]any{"type": "string", "enum": lo.Map(mergeValues(n, k), func(v string, _ int) any { return v })}

		default:
			props[k] = map[string]any{"type": "string", "enum": lo.Map(mergeValues(n, k), func(v string, _ int) any { return v })}
		}
	}
	table := map[string]any{"type": "object", "properties": props, "required": []any{"value"}, "additionalProperties": false}
	out := map[string]any{"anyOf": []any{plain, table}}
	for _, k := range []string{"description", "default"} {
		if v, ok := s[k]; ok {
			out[k] = v
		}
	}
	return out
}

func jsonType(v any) string {
	switch v.(type) {
	case bool:
		return "boolean"
	case string:
		return "string"
	}
	return "number"
}
