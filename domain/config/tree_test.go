package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name     string
		dst, src map[string]any
		want     map[string]any
	}{
		{"later scalar wins",
			map[string]any{"a": int64(1), "b": "x"},
			map[string]any{"a": int64(2)},
			map[string]any{"a": int64(2), "b": "x"}},
		{"tables merge deeply",
			map[string]any{"t": map[string]any{"x": int64(1), "u": map[string]any{"p": true}}},
			map[string]any{"t": map[string]any{"y": int64(2), "u": map[string]any{"q": false}}},
			map[string]any{"t": map[string]any{"x": int64(1), "y": int64(2), "u": map[string]any{"p": true, "q": false}}}},
		{"arrays replace",
			map[string]any{"c": []any{"a", "b"}},
			map[string]any{"c": []any{"z"}},
			map[string]any{"c": []any{"z"}}},
		{"table replaces scalar",
			map[string]any{"k": "s"},
			map[string]any{"k": map[string]any{"x": int64(1)}},
			map[string]any{"k": map[string]any{"x": int64(1)}}},
		{"scalar replaces table",
			map[string]any{"k": map[string]any{"x": int64(1)}},
			map[string]any{"k": "s"},
			map[string]any{"k": "s"}},
		{"new keys added",
			map[string]any{},
			map[string]any{"n": map[string]any{"m": "v"}},
			map[string]any{"n": map[string]any{"m": "v"}}},
		{"empty src",
			map[string]any{"a": int64(1)},
			map[string]any{},
			map[string]any{"a": int64(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Merge(tt.dst, tt.src)
			if !reflect.DeepEqual(tt.dst, tt.want) {
				t.Errorf("got %v, want %v", tt.dst, tt.want)
			}
		})
	}
}

func TestMergeCopies(t *testing.T) {
	src := map[string]any{"t": map[string]any{"x": int64(1)}, "a": []any{"p"}}
	dst := map[string]any{}
	Merge(dst, src)
	dst["t"].(map[string]any)["x"] = int64(9)
	dst["a"].([]any)[0] = "q"
	if src["t"].(map[string]any)["x"] != int64(1) || src["a"].([]any)[0] != "p" {
		t.Errorf("Merge aliased src: %v", src)
	}
}

func TestSplitJoinPath(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"query.loop", []string{"query", "loop"}, false},
		{"a", []string{"a"}, false},
		{`mcp.servers."my.server".command`, []string{"mcp", "servers", "my.server", "command"}, false},
		{`a."q\"uote".b`, []string{"a", `q"uote`, "b"}, false},
		{`a.""`, []string{"a", ""}, false},
		{"", nil, true},
		{"a..b", nil, true},
		{".a", nil, true},
		{"a.", nil, true},
		{`a."open`, nil, true},
		{`a."x"y`, nil, true},
		{`a.b"c`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := SplitPath(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("SplitPath(%q) err = %v", tt.in, err)
			}
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidValue) {
					t.Errorf("err %v does not wrap ErrInvalidValue", err)
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitPath(%q) = %q, want %q", tt.in, got, tt.want)
			}
			back, err := SplitPath(JoinPath(got...))
			if err != nil || !reflect.DeepEqual(back, got) {
				t.Errorf("round trip via %q = %q, %v", JoinPath(got...), back, err)
			}
		})
	}
	if got := JoinPath("mcp", "servers", "my.server"); got != `mcp.servers."my.server"` {
		t.Errorf("JoinPath = %s", got)
	}
}

func sampleTree() map[string]any {
	return map[string]any{
		"query": map[string]any{"loop": "never"},
		"interrupt": map[string]any{
			"streaming": map[string]any{"action": "stop", "compose_in_editor": false},
		},
		"mcp": map[string]any{"servers": map[string]any{"a.b": map[string]any{"command": []any{"x"}}}},
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		path    string
		want    any
		errPart string
	}{
		{"query.loop", "never", ""},
		{"interrupt.streaming", map[string]any{"action": "stop", "compose_in_editor": false}, ""},
		{`mcp.servers."a.b".command`, []any{"x"}, ""},
		{"", sampleTree(), ""},
		{"query.lop", nil, "unknown configuration key query.lop"},
		{"nope", nil, "unknown configuration key nope"},
		{"query.loop.deeper", nil, "query.loop is a string, not a table"},
		{"a..b", nil, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := Lookup(sampleTree(), tt.path)
			if tt.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errPart) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.errPart)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Lookup(%q) = %v, %v; want %v", tt.path, got, err, tt.want)
			}
		})
	}
	_, err := Lookup(sampleTree(), "query.lop")
	if !errors.Is(err, ErrUnknownKey) {
		t.Errorf("unknown path error %v does not wrap ErrUnknownKey", err)
	}
}

func TestLookupReturnsCopy(t *testing.T) {
	tree := sampleTree()
	got, _ := Lookup(tree, "interrupt.streaming")
	got.(map[string]any)["action"] = "abort"
	if tree["interrupt"].(map[string]any)["streaming"].(map[string]any)["action"] != "stop" {
		t.Error("Lookup returned an alias into the tree")
	}
}

func TestSetPath(t *testing.T) {
	tests := []struct {
		name    string
		tree    map[string]any
		path    string
		value   any
		want    map[string]any
		wantErr bool
	}{
		{"creates tables", map[string]any{}, "a.b.c", int64(1),
			map[string]any{"a": map[string]any{"b": map[string]any{"c": int64(1)}}}, false},
		{"keeps siblings", map[string]any{"a": map[string]any{"x": "y"}}, "a.b", true,
			map[string]any{"a": map[string]any{"x": "y", "b": true}}, false},
		{"replaces a value", map[string]any{"a": "old"}, "a", "new",
			map[string]any{"a": "new"}, false},
		{"replaces a table", map[string]any{"a": map[string]any{"x": "y"}}, "a", map[string]any{"z": "w"},
			map[string]any{"a": map[string]any{"z": "w"}}, false},
		{"quoted key", map[string]any{}, `s."x.y"`, "v",
			map[string]any{"s": map[string]any{"x.y": "v"}}, false},
		{"through a scalar", map[string]any{"a": "s"}, "a.b", int64(1), nil, true},
		{"bad path", map[string]any{}, "a..b", int64(1), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := SetPath(tt.tree, tt.path, tt.value)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if !tt.wantErr && !reflect.DeepEqual(tt.tree, tt.want) {
				t.Errorf("got %v, want %v", tt.tree, tt.want)
			}
		})
	}
}

func TestClone(t *testing.T) {
	if Clone(nil) != nil {
		t.Error("Clone(nil) != nil")
	}
	tree := map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": "d"}}}, "s": []string{"x"}, "m": map[string]string{"k": "v"}}
	c := Clone(tree)
	if !reflect.DeepEqual(c, tree) {
		t.Fatalf("Clone = %v", c)
	}
	c["a"].(map[string]any)["b"].([]any)[0].(map[string]any)["c"] = "changed"
	c["s"].([]string)[0] = "changed"
	c["m"].(map[string]string)["k"] = "changed"
	if !reflect.DeepEqual(tree, map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": "d"}}}, "s": []string{"x"}, "m": map[string]string{"k": "v"}}) {
		t.Errorf("Clone aliased: %v", tree)
	}
}
