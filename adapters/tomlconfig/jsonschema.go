package tomlconfig

import (
	"reflect"
	"slices"

	"github.com/samber/lo"
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
	return s
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
