package tomlconfig

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/jpcli/jp/domain/config"
)

// kind is the shape of a configuration key, read off the Go type that
// holds it in domain/config.
type kind int

const (
	kindTable   kind = iota // a struct (or a pointer to one: an optional table)
	kindMap                 // map[string]T: any key, each value a T
	kindAny                 // map[string]any: any table (JSON Schema, plugin options)
	kindString              // string
	kindInt                 // int, at least node.min
	kindBool                // bool
	kindStrings             // []string
	kindEnum                // a config.Enum
	kindScalar              // a config.Scalar
	kindList                // []T of a struct T: an array of tables (or of strings, when *T is a config.StringSetter)
)

// mergeMode says how a layer's value of a key merges with the layers'
// below (the merge struct tag).
type mergeMode int

const (
	mergeReplace  mergeMode = iota // the default: a later value replaces
	mergeStrategy                  // merge:"strategy": also a { value, strategy, ... } table
	mergeAppend                    // merge:"append": arrays of later layers are appended
)

// node describes one key of the schema. Validation, decoding, encoding and
// the JSON Schema all walk the same node tree, so they cannot disagree.
type node struct {
	kind kind
	typ  reflect.Type // the Go type of the key (a pointer type for optional tables)
	doc  string
	min  int64
	// kindTable: the named fields, in declaration order, and the
	// toml:"*" field taking every other key (nil when there is none).
	fields []*field
	rest   *field
	// kindMap: the node of each value.
	elem *node
	// kindEnum: a zero value, for EnumValues.
	enum config.Enum
	// merge: how layers' values of this key combine.
	merge mergeMode
	// dedup (the dedup:"true" tag on a merge:"strategy" array) drops
	// repeated items when layers merge, unless a layer says dedup = false.
	dedup bool
	// optional: a pointer to a scalar (*bool): nil when unset.
	optional bool
}

// field is a key of a table and where it lives in the struct.
type field struct {
	name  string
	index int
	node  *node
}

var (
	enumType   = reflect.TypeFor[config.Enum]()
	scalarType = reflect.TypeFor[config.Scalar]()
	setterType = reflect.TypeFor[config.EnumSetter]()
)

// buildNode derives the schema of t from its struct tags. An unsupported
// type is a programming error in domain/config, so it panics (the package
// tests build the whole schema).
func buildNode(t reflect.Type, doc string, min int64) *node {
	n := &node{typ: t, doc: doc, min: min}
	if t.Implements(enumType) && reflect.PointerTo(t).Implements(setterType) {
		n.kind = kindEnum
		n.enum = reflect.Zero(t).Interface().(config.Enum)
		return n
	}
	if t.Implements(scalarType) && reflect.PointerTo(t).Implements(setterType) {
		n.kind = kindScalar
		return n
	}
	switch t.Kind() {
	case reflect.Pointer:
		inner := buildNode(t.Elem(), doc, min)
		switch inner.kind {
		case kindTable:
		case kindBool, kindInt, kindString:
			inner.optional = true
		default:
			panic(fmt.Sprintf("tomlconfig: unsupported pointer type %s", t))
		}
		inner.typ = t
		return inner
	case reflect.Struct:
		n.kind = kindTable
		for i := range t.NumField() {
			f := buildField(t, i)
			switch {
			case f == nil:
			case f.name == "*":
				n.rest = f
			default:
				n.fields = append(n.fields, f)
			}
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("tomlconfig: unsupported map key in %s", t))
		}
		if t.Elem().Kind() == reflect.Interface {
			n.kind = kindAny
			return n
		}
		n.kind = kindMap
		n.elem = buildNode(t.Elem(), "", 0)
	case reflect.Slice:
		switch t.Elem().Kind() {
		case reflect.String:
			n.kind = kindStrings
		case reflect.Struct:
			n.kind = kindList
			n.elem = buildNode(t.Elem(), "", 0)
		default:
			panic(fmt.Sprintf("tomlconfig: unsupported slice type %s", t))
		}
	case reflect.String:
		n.kind = kindString
	case reflect.Int:
		n.kind = kindInt
	case reflect.Bool:
		n.kind = kindBool
	default:
		panic(fmt.Sprintf("tomlconfig: unsupported type %s", t))
	}
	return n
}

// buildField derives the schema of t's field i from its tags (toml, doc,
// min, merge, dedup); nil for a field without a toml tag or unexported.
func buildField(t reflect.Type, i int) *field {
	sf := t.Field(i)
	name, ok := sf.Tag.Lookup("toml")
	if !ok || !sf.IsExported() {
		return nil
	}
	var fmin int64
	if s, ok := sf.Tag.Lookup("min"); ok {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			panic(fmt.Sprintf("tomlconfig: bad min tag on %s.%s", t, sf.Name))
		}
		fmin = v
	}
	f := &field{name: name, index: i, node: buildNode(sf.Type, sf.Tag.Get("doc"), fmin)}
	switch sf.Tag.Get("merge") {
	case "":
	case "strategy":
		f.node.merge = mergeStrategy
	case "append":
		f.node.merge = mergeAppend
	default:
		panic(fmt.Sprintf("tomlconfig: bad merge tag on %s.%s", t, sf.Name))
	}
	f.node.dedup = sf.Tag.Get("dedup") == "true"
	if name == "*" && f.node.kind != kindMap {
		panic(fmt.Sprintf("tomlconfig: toml:\"*\" on non-map field %s.%s", t, sf.Name))
	}
	return f
}

// child returns the node of key in a table or map node, or nil when the
// schema has no such key.
func (n *node) child(key string) *node {
	switch n.kind {
	case kindTable:
		if f := n.field(key); f != nil {
			return f.node
		}
		if n.rest != nil {
			return n.rest.node.elem
		}
	case kindMap:
		return n.elem
	}
	return nil
}

func (n *node) field(key string) *field {
	for _, f := range n.fields {
		if f.name == key {
			return f
		}
	}
	return nil
}

// at returns the node at a key path, or nil.
func (n *node) at(segs []string) *node {
	for _, s := range segs {
		if n = n.child(s); n == nil {
			return nil
		}
	}
	return n
}

// setDefaults calls SetDefaults on v (a pointer) when it is a
// config.Defaulter.
func setDefaults(v reflect.Value) {
	if d, ok := v.Interface().(config.Defaulter); ok {
		d.SetDefaults()
	}
}

// decode stores a validated tree value into dst (addressable), which
// already holds defaults; keys absent from v leave them as they are.
func decode(v any, n *node, dst reflect.Value) error {
	if n.optional {
		p := reflect.New(dst.Type().Elem())
		dst.Set(p)
		dst = p.Elem()
	}
	switch n.kind {
	case kindTable:
		if dst.Kind() == reflect.Pointer {
			if dst.IsNil() {
				dst.Set(reflect.New(dst.Type().Elem()))
				setDefaults(dst)
			}
			dst = dst.Elem()
		}
		for k, sub := range v.(map[string]any) {
			if f := n.field(k); f != nil {
				if err := decode(sub, f.node, dst.Field(f.index)); err != nil {
					return err
				}
				continue
			}
			if n.rest == nil {
				return fmt.Errorf("unknown key %q", k)
			}
			if err := decodeEntry(k, sub, n.rest.node, dst.Field(n.rest.index)); err != nil {
				return err
			}
		}
	case kindMap:
		if dst.IsNil() {
			dst.Set(reflect.MakeMap(dst.Type()))
		}
		for k, sub := range v.(map[string]any) {
			if err := decodeEntry(k, sub, n, dst); err != nil {
				return err
			}
		}
	case kindAny:
		dst.Set(reflect.ValueOf(config.Clone(v.(map[string]any))))
	case kindString:
		dst.SetString(v.(string))
	case kindInt:
		dst.SetInt(v.(int64))
	case kindBool:
		dst.SetBool(v.(bool))
	case kindStrings:
		items := v.([]any)
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = it.(string)
		}
		dst.Set(reflect.ValueOf(out))
	case kindEnum, kindScalar:
		return dst.Addr().Interface().(config.EnumSetter).SetConfigValue(v)
	case kindList:
		items := v.([]any)
		out := reflect.MakeSlice(dst.Type(), len(items), len(items))
		for i, it := range items {
			el := out.Index(i)
			if s, ok := it.(string); ok {
				el.Addr().Interface().(config.StringSetter).SetFromString(s)
				continue
			}
			if err := decode(it, n.elem, el); err != nil {
				return err
			}
		}
		dst.Set(out)
	}
	return nil
}

// decodeEntry decodes one entry of a map node into the map m, starting
// from the element type's defaults.
func decodeEntry(key string, v any, mapNode *node, m reflect.Value) error {
	if m.IsNil() {
		m.Set(reflect.MakeMap(m.Type()))
	}
	elem := reflect.New(m.Type().Elem())
	setDefaults(elem)
	if err := decode(v, mapNode.elem, elem.Elem()); err != nil {
		return err
	}
	m.SetMapIndex(reflect.ValueOf(key), elem.Elem())
	return nil
}

// encode turns a typed value into its tree form; nil means "not written"
// (an Unknown enum, a nil slice, map or optional table).
func encode(v reflect.Value, n *node) any {
	if n.optional {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch n.kind {
	case kindTable:
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		out := map[string]any{}
		for _, f := range n.fields {
			if ev := encode(v.Field(f.index), f.node); ev != nil {
				out[f.name] = ev
			}
		}
		if n.rest != nil {
			if rest, ok := encode(v.Field(n.rest.index), n.rest.node).(map[string]any); ok {
				for k, ev := range rest {
					out[k] = ev
				}
			}
		}
		return out
	case kindMap:
		if v.IsNil() {
			return nil
		}
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			if ev := encode(it.Value(), n.elem); ev != nil {
				out[it.Key().String()] = ev
			}
		}
		return out
	case kindAny:
		if v.IsNil() {
			return nil
		}
		return config.Clone(v.Interface().(map[string]any))
	case kindString:
		return v.String()
	case kindInt:
		return v.Int()
	case kindBool:
		return v.Bool()
	case kindStrings:
		if v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range v.Len() {
			out[i] = v.Index(i).String()
		}
		return out
	case kindEnum:
		return v.Interface().(config.Enum).ConfigValue()
	case kindList:
		if v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range v.Len() {
			out[i] = encode(v.Index(i), n.elem)
		}
		return out
	case kindScalar:
		return v.Interface().(config.Scalar).ConfigValue()
	}
	return nil
}

// elemDefaults is the tree form of a new entry of a map node of tables
// (see newDefaults); nil for other maps.
func elemDefaults(mapNode *node) any {
	if mapNode.elem.kind != kindTable {
		return nil
	}
	return newDefaults(mapNode.elem)
}

// newDefaults is the tree form of a new table of node n (a struct or a
// pointer to one) after SetDefaults, without empty strings: an unset string
// of a new entry is absent, not a default.
func newDefaults(n *node) map[string]any {
	t := n.typ
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	v := reflect.New(t)
	setDefaults(v)
	def, _ := encode(v.Elem(), n).(map[string]any)
	for k, x := range def {
		if x == "" {
			delete(def, k)
		}
	}
	return def
}
