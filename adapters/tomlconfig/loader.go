// Package tomlconfig loads jp's layered TOML configuration (SPEC section 4,
// docs/configuration.md): built-in defaults, the user, workspace and
// .jp.toml files, JP_CFG_* environment variables and --cfg flags. Each
// layer is validated on its own against the schema derived from the
// domain/config types, so an error names the key and the layer it came
// from; the layers are then merged and decoded into a config.Config.
package tomlconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/ports"
)

// Loader implements ports.ConfigLoader. It holds no per-load state and is
// safe for concurrent use.
type Loader struct{}

var _ ports.ConfigLoader = (*Loader)(nil)

// New returns a Loader.
func New() *Loader { return &Loader{} }

// schema is the node tree of config.Config and the tree of its defaults,
// built once.
var schema = sync.OnceValues(func() (*node, map[string]any) {
	root := buildNode(reflect.TypeFor[config.Config](), "", 0)
	def := config.Default()
	return root, encode(reflect.ValueOf(def), root).(map[string]any)
})

// defaultsSource names the lowest layer.
const defaultsSource = "built-in defaults"

// Load implements ports.ConfigLoader.
func (l *Loader) Load(ctx context.Context, src ports.ConfigSource) (config.Resolved, error) {
	root, defaults := schema()
	merged := config.Clone(defaults)
	sources := []string{defaultsSource}
	apply := func(tree map[string]any, source string) error {
		if err := validate(tree, root, source); err != nil {
			return err
		}
		config.Merge(merged, tree)
		sources = append(sources, source)
		return nil
	}

	for _, path := range filePaths(src) {
		if err := ctx.Err(); err != nil {
			return config.Resolved{}, err
		}
		tree, err := readFile(path)
		if err != nil {
			return config.Resolved{}, err
		}
		if tree == nil {
			continue
		}
		if err := apply(tree, path); err != nil {
			return config.Resolved{}, err
		}
	}
	envLayers, err := envLayers(src.Env, root)
	if err != nil {
		return config.Resolved{}, err
	}
	flagLayers, err := flagLayers(src.Overrides, root)
	if err != nil {
		return config.Resolved{}, err
	}
	for _, ly := range append(envLayers, flagLayers...) {
		if err := apply(ly.tree, ly.source); err != nil {
			return config.Resolved{}, err
		}
	}

	cfg := config.Default()
	if err := decode(merged, root, reflect.ValueOf(&cfg).Elem()); err != nil {
		return config.Resolved{}, fmt.Errorf("decode configuration: %w", err)
	}
	return config.Resolved{
		Config:  cfg,
		Tree:    encode(reflect.ValueOf(cfg), root).(map[string]any),
		Sources: sources,
	}, nil
}

// filePaths lists the configuration files of src, lowest layer first.
func filePaths(src ports.ConfigSource) []string {
	var paths []string
	if src.UserConfigDir != "" {
		paths = append(paths, filepath.Join(src.UserConfigDir, "config.toml"))
	}
	if src.WorkspaceRoot == "" {
		return paths
	}
	root := filepath.Clean(src.WorkspaceRoot)
	paths = append(paths, filepath.Join(root, ".jp", "config.toml"), filepath.Join(root, ".jp.toml"))
	if src.LaunchDir == "" {
		return paths
	}
	rel, err := filepath.Rel(root, filepath.Clean(src.LaunchDir))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return paths
	}
	dir := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		paths = append(paths, filepath.Join(dir, ".jp.toml"))
	}
	return paths
}

// readFile parses one configuration file; a missing file is (nil, nil).
func readFile(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read configuration file %s: %w", path, err)
	}
	tree := map[string]any{}
	if err := toml.Unmarshal(data, &tree); err != nil {
		se := &config.SyntaxError{Source: path, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			se.Line, se.Column = de.Position()
		}
		return nil, se
	}
	return tree, nil
}

// Render implements ports.ConfigLoader. A config.Config is rendered as its
// tree.
func (l *Loader) Render(v any, format string) ([]byte, error) {
	if c, ok := v.(config.Config); ok {
		root, _ := schema()
		v = encode(reflect.ValueOf(c), root)
	}
	switch format {
	case "json":
		b, err := marshalJSON(v)
		if err != nil {
			return nil, fmt.Errorf("render configuration as JSON: %w", err)
		}
		return b, nil
	case "toml", "":
		if m, ok := v.(map[string]any); ok {
			b, err := toml.Marshal(m)
			if err != nil {
				return nil, fmt.Errorf("render configuration as TOML: %w", err)
			}
			return b, nil
		}
		// A single value: render it as the right-hand side of a key.
		b, err := toml.Marshal(map[string]any{"v": v})
		if err != nil {
			return nil, fmt.Errorf("render configuration as TOML: %w", err)
		}
		return bytes.TrimPrefix(b, []byte("v = ")), nil
	}
	return nil, fmt.Errorf("unknown format %q: expected toml or json", format)
}

// Schema implements ports.ConfigLoader.
func (l *Loader) Schema() ([]byte, error) {
	b, err := schemaJSON()
	return bytes.Clone(b), err
}

var schemaJSON = sync.OnceValues(func() ([]byte, error) {
	root, def := schema()
	b, err := marshalJSON(jsonSchema(root, def))
	if err != nil {
		return nil, fmt.Errorf("render configuration schema: %w", err)
	}
	return b, nil
})

// marshalJSON indents v by two spaces, ends it with a newline and leaves
// <, > and & unescaped.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
