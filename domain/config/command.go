package config

import (
	"encoding/json"
	"fmt"
	"strings"
)

// CommandContext is what the placeholders of a local tool's command expand
// to for one call.
type CommandContext struct {
	// Tool is the tool's name as offered to the model.
	Tool string
	// Arguments are the call's arguments, a JSON object.
	Arguments json.RawMessage
	// Root is the checkout root the tool runs in.
	Root string
}

// ExpandCommand expands the placeholders of each argument of argv
// separately, so an expansion never splits into more arguments and no
// shell is involved:
//
//	{{tool}}            {"name":...,"arguments":{...},"answers":{}} as JSON
//	{{tool.name}}       the tool's name
//	{{tool.arguments}}  the call's arguments as a JSON object
//	{{tool.arguments.X}} argument X: a string as is, any other value as JSON
//	                    ("" when absent)
//	{{context}}         {"action":"run","root":...} as JSON
//	{{context.root}}    the checkout root
//	{{context.action}}  "run"
//
// Spaces inside the braces are ignored. Any other placeholder, or a "{{"
// without its "}}", is an error naming it.
func ExpandCommand(argv []string, cc CommandContext) ([]string, error) {
	out := make([]string, 0, len(argv))
	for _, a := range argv {
		s, err := expandArg(a, cc)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func expandArg(a string, cc CommandContext) (string, error) {
	if !strings.Contains(a, "{{") {
		return a, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(a, "{{")
		if i < 0 {
			b.WriteString(a)
			return b.String(), nil
		}
		j := strings.Index(a[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unterminated placeholder in command argument %q: a {{ without }}", a)
		}
		b.WriteString(a[:i])
		v, err := placeholder(strings.TrimSpace(a[i+2:i+j]), cc)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		a = a[i+j+2:]
	}
}

func placeholder(name string, cc CommandContext) (string, error) {
	args := cc.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	switch name {
	case "tool":
		return compactJSON(map[string]any{"name": cc.Tool, "arguments": args, "answers": map[string]any{}})
	case "tool.name":
		return cc.Tool, nil
	case "tool.arguments":
		return compactJSON(args)
	case "context":
		return compactJSON(map[string]any{"action": "run", "root": cc.Root})
	case "context.root":
		return cc.Root, nil
	case "context.action":
		return "run", nil
	}
	if key, ok := strings.CutPrefix(name, "tool.arguments."); ok && key != "" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(args, &m); err != nil {
			return "", fmt.Errorf("the arguments are not a JSON object: %v", err)
		}
		raw, ok := m[key]
		if !ok {
			return "", nil
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, nil
		}
		return compactJSON(raw)
	}
	return "", fmt.Errorf("unknown placeholder {{%s}} in the tool's command: expected tool, tool.name, tool.arguments, tool.arguments.NAME, context, context.root or context.action", name)
}

func compactJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("render placeholder: %v", err)
	}
	return string(b), nil
}

// ParameterSchema returns the JSON Schema of the tool's arguments. A
// parameters table that is a JSON Schema (its "type" is "object") is
// returned as is. The Rust jp's form, a table of parameter name to
// { type, description, required, default, enum, items, properties }, is
// converted: required parameters are listed in "required", and no other
// argument is accepted. Without parameters the tool takes an empty object.
func (t Tool) ParameterSchema() map[string]any {
	p := t.Parameters
	if p == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}}
	}
	if typ, ok := p["type"].(string); ok && typ == "object" {
		return p
	}
	for _, v := range p {
		if _, ok := v.(map[string]any); !ok {
			return p // neither form: left to the JSON Schema check to report
		}
	}
	return objectSchema(p)
}

// objectSchema converts a Rust-style parameter table into an object schema.
func objectSchema(params map[string]any) map[string]any {
	props := map[string]any{}
	required := []any{}
	for name, v := range params {
		pc := v.(map[string]any)
		props[name] = paramSchema(pc)
		if req, _ := pc["required"].(bool); req {
			required = append(required, name)
		}
	}
	sortAny(required)
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// paramSchema is the JSON Schema of one Rust-style parameter.
func paramSchema(pc map[string]any) map[string]any {
	s := map[string]any{}
	for k, v := range pc {
		switch k {
		case "required", "summary", "examples":
			// not JSON Schema keywords: required is lifted to the parent.
		case "properties":
			if props, ok := v.(map[string]any); ok {
				obj := objectSchema(props)
				s["properties"], s["required"], s["additionalProperties"] = obj["properties"], obj["required"], false
			}
		case "items":
			if it, ok := v.(map[string]any); ok {
				s["items"] = paramSchema(it)
			}
		default:
			s[k] = v
		}
	}
	return s
}

func sortAny(xs []any) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j].(string) < xs[j-1].(string); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
