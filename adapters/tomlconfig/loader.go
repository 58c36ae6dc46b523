// Package tomlconfig loads jp's layered TOML configuration (docs/configuration.md,
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
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// Loader implements ports.ConfigLoader. It is safe for concurrent use; its
// only state is which unsupported keys it has already warned about, so that
// a run warns once.
type Loader struct {
	opts Options

	mu             sync.Mutex
	warned         map[string]bool
	noted          bool
	untrustedNoted bool
}

// Options are where a Loader reports the keys of the Rust jp it ignores.
type Options struct {
	// Log gets one record per ignored key (at info level: shown with -v).
	Log *slog.Logger
	// Notice gets one line per Loader (per run) summing them up; nil: none.
	// It also gets the line saying which keys of an untrusted checkout
	// were ignored.
	Notice io.Writer
	// Trust is the user's record of trusted checkouts; nil trusts none.
	Trust TrustRecord
	// UserWorkspace names the user's own configuration file for the
	// workspace checked out at root (in its user-local silo, never in the
	// checkout): a layer after the .jp.toml files, never held back; nil
	// or "": none.
	UserWorkspace func(root string) string
}

// TrustRecord says whether the user trusts a checkout (its real path)
// with the keys that hash to hash (config.TrustHash).
type TrustRecord interface {
	Trusted(root, hash string) (bool, error)
}

var _ ports.ConfigLoader = (*Loader)(nil)

// New returns a Loader that reports nothing.
func New() *Loader { return &Loader{warned: map[string]bool{}} }

// NewWithOptions returns a Loader that reports ignored keys as opts says.
func NewWithOptions(opts Options) *Loader { return &Loader{opts: opts, warned: map[string]bool{}} }

// schema is the node tree of config.Config and the tree of its defaults,
// built once.
var schema = sync.OnceValues(func() (*node, map[string]any) {
	root := buildNode(reflect.TypeFor[config.Config](), "", 0)
	def := config.Default()
	return root, encode(reflect.ValueOf(def), root).(map[string]any)
})

// defaultsSource names the lowest layer.
const defaultsSource = "built-in defaults"

// Load implements ports.ConfigLoader. The checkout's own files' keys
// that run a program or send data (config.HoldBack) apply only when the
// trust record (Options.Trust) holds the checkout with exactly those
// keys; otherwise they are left out, Resolved.Trust says which, and,
// unless src.AskTrust, one line per run says so.
func (l *Loader) Load(ctx context.Context, src ports.ConfigSource) (config.Resolved, error) {
	parsed := map[string]map[string]any{}
	res, err := l.load(ctx, src, false, parsed)
	if err != nil {
		return config.Resolved{}, err
	}
	review := config.TrustReview{Root: realRoot(src.WorkspaceRoot), Held: res.held}
	review.Hash = config.TrustHash(review.Held)
	if len(review.Held) > 0 && l.opts.Trust != nil && review.Root != "" {
		ok, err := l.opts.Trust.Trusted(review.Root, review.Hash)
		if err != nil {
			return config.Resolved{}, err
		}
		if ok {
			trusted, err := l.load(ctx, src, true, parsed)
			if err != nil {
				return config.Resolved{}, err
			}
			// The same files (parsed once), merged with the keys: the
			// hash cannot differ, but it is what makes them apply.
			if config.TrustHash(trusted.held) == review.Hash {
				res, review.Trusted = trusted, true
			}
		}
	}
	if len(review.Held) == 0 {
		review.Trusted = true
	}
	res.Resolved.Trust = review
	if res.Config.ProjectFiles, err = projectFiles(src.WorkspaceRoot); err != nil {
		return config.Resolved{}, err
	}
	l.report(res.Unsupported)
	if review.Ignored() && !src.AskTrust {
		l.reportUntrusted(review)
	}
	return res.Resolved, nil
}

// loaded is one pass of Load: the configuration and what it held back.
type loaded struct {
	config.Resolved
	held []config.HeldKey
}

// load merges every layer of src once; trustAll applies the checkout's
// keys that run or send. parsed holds the files already read by an
// earlier pass of the same Load.
func (l *Loader) load(ctx context.Context, src ports.ConfigSource, trustAll bool, parsed map[string]map[string]any) (loaded, error) {
	root, defaults := schema()
	ld := &loading{root: root, src: src, merged: config.Clone(defaults), mg: newMerger(root), sources: []string{defaultsSource},
		trustAll: trustAll, parsed: parsed}

	if err := l.files(ctx, ld); err != nil {
		return loaded{}, err
	}
	envLayers, err := envLayers(src.Env, root)
	if err != nil {
		return loaded{}, err
	}
	for _, ly := range envLayers {
		if err := ld.apply(ly.tree, ly.source, false); err != nil {
			return loaded{}, err
		}
	}
	for _, ly := range src.Conversation {
		if err := ld.jsonLayer(ly); err != nil {
			return loaded{}, err
		}
	}
	below := config.Clone(ld.merged)
	cli := map[string]any{}
	ld.cli = cli
	if err := ld.overrides(ctx); err != nil {
		return loaded{}, err
	}
	if strings.TrimSpace(src.EditorConfig) != "" {
		const source = "the configuration in the editor"
		tree, err := parseTOML(source, []byte(src.EditorConfig))
		if err != nil {
			return loaded{}, err
		}
		if err := ld.apply(tree, source, false); err != nil {
			return loaded{}, err
		}
	}

	cfg := config.Default()
	if err := decode(ld.merged, root, reflect.ValueOf(&cfg).Elem()); err != nil {
		return loaded{}, fmt.Errorf("decode configuration: %w", err)
	}
	return loaded{
		Resolved: config.Resolved{
			Config:      cfg,
			Tree:        encode(reflect.ValueOf(cfg), root).(map[string]any),
			Sources:     ld.sources,
			Unsupported: ld.unsupported,
			CommandLine: arrayDeltas(config.Changed(below, project(ld.merged, cli)), below, root),
			CommandLineValues: func() map[string]any {
				if len(cli) == 0 {
					return nil
				}
				return cli
			}(),
		},
		held: ld.held,
	}, nil
}

// files applies the configuration files: the user's, the workspace's
// and the launch directory's, then the user's own file for this
// workspace. Every file but the user's is the checkout's own.
func (l *Loader) files(ctx context.Context, ld *loading) error {
	userFile := ""
	if ld.src.UserConfigDir != "" {
		userFile = filepath.Join(ld.src.UserConfigDir, "config.toml")
	}
	paths := filePaths(ld.src)
	userWS := ""
	if l.opts.UserWorkspace != nil && ld.src.WorkspaceRoot != "" {
		if userWS = l.opts.UserWorkspace(ld.src.WorkspaceRoot); userWS != "" {
			paths = append(paths, userWS)
		}
	}
	for _, path := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := ld.file(path, false, nil, path != userFile && path != userWS); err != nil {
			return err
		}
	}
	return nil
}

// overrides applies the command line's --cfg layers in order: KEY=VALUE
// assignments and whole files (--cfg FILE or NAME; one in the checkout, a
// persona it ships, is the checkout's).
func (ld *loading) overrides(ctx context.Context) error {
	for _, f := range ld.src.Overrides {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !strings.Contains(f, "=") {
			// --cfg FILE or --cfg NAME: a whole file as one layer; one in
			// the checkout (a persona it ships) is the checkout's.
			path, err := ld.findCfgFile(f)
			if err != nil {
				return err
			}
			if err := ld.file(path, true, nil, inCheckout(path, ld.src)); err != nil {
				return err
			}
			continue
		}
		ly, err := flagLayer(f, ld.root)
		if err != nil {
			return err
		}
		if err := ld.apply(ly.tree, ly.source, false); err != nil {
			return err
		}
	}

	return nil
}

// project returns the values of merged at the keys of shape: a key whose
// shape is a table and whose value is one is projected key by key, any
// other takes its whole merged value (an appended array, a { value,
// strategy } table's result).
func project(merged, shape map[string]any) map[string]any {
	out := map[string]any{}
	for k, sv := range shape {
		mv, ok := merged[k]
		if !ok {
			continue
		}
		st, sok := sv.(map[string]any)
		mt, mok := mv.(map[string]any)
		if sok && mok {
			out[k] = project(mt, st)
			continue
		}
		out[k] = config.Clone(map[string]any{"v": mv})["v"]
	}
	return out
}

// arrayDeltas rewrites the arrays of changes whose key appends across
// layers so that, recorded as a conversation's config_delta and merged
// back over below, they give the value the command line made: an array
// that only grew records the new items (as the Rust jp's delta of a
// vec), one that lost items records { strategy = "replace", value }, so
// that what was removed does not come back from the layers below.
func arrayDeltas(changes, below map[string]any, n *node) map[string]any {
	for k, v := range changes {
		var child *node
		if n != nil {
			child = n.child(k)
		}
		if child == nil {
			continue
		}
		bv := below[k]
		if sub, ok := v.(map[string]any); ok {
			bsub, _ := bv.(map[string]any)
			arrayDeltas(sub, bsub, child)
			continue
		}
		next, ok := v.([]any)
		prev, pok := bv.([]any)
		if !ok || !pok || child.merge == mergeReplace {
			continue
		}
		key := func(x any) string { b, _ := json.Marshal(x); return string(b) }
		have := map[string]bool{}
		for _, x := range next {
			have[key(x)] = true
		}
		grew := true
		for _, x := range prev {
			if !have[key(x)] {
				grew = false
				break
			}
		}
		if !grew {
			changes[k] = map[string]any{"strategy": "replace", "value": next}
			continue
		}
		had := map[string]bool{}
		for _, x := range prev {
			had[key(x)] = true
		}
		added := []any{}
		for _, x := range next {
			if !had[key(x)] {
				added = append(added, x)
			}
		}
		changes[k] = added
	}
	return changes
}

// realRoot is the checkout root with symbolic links resolved ("" stays
// ""): the trust record's key.
func realRoot(root string) string {
	if root == "" {
		return ""
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return filepath.Clean(root)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// inCheckout reports whether the file at path lies in src's checkout
// (and not in the user's configuration directory).
func inCheckout(path string, src ports.ConfigSource) bool {
	if src.WorkspaceRoot == "" {
		return false
	}
	p := realRoot(path)
	within := func(dir string) bool {
		if dir == "" {
			return false
		}
		rel, err := filepath.Rel(realRoot(dir), p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	return within(src.WorkspaceRoot) && !within(src.UserConfigDir)
}

// reportUntrusted writes, once per Loader, the line saying which keys of
// an untrusted checkout were ignored and how to apply them.
func (l *Loader) reportUntrusted(r config.TrustReview) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opts.Log != nil {
		for _, h := range r.Held {
			l.opts.Log.Info("checkout not trusted: configuration key ignored", "key", h.Key, "source", h.Source)
		}
	}
	if l.untrustedNoted || l.opts.Notice == nil {
		return
	}
	l.untrustedNoted = true
	// Key names come from the checkout's files: made safe for a terminal.
	fmt.Fprintln(l.opts.Notice, safetext.String(r.Notice()))
}

// report logs each ignored key once per Loader, and writes the one-line
// notice the first time there are any.
func (l *Loader) report(keys []config.UnsupportedKey) {
	if len(keys) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		if !slices.Contains(names, k.Key) {
			names = append(names, k.Key)
		}
		id := k.Key + "\x00" + k.Source
		if l.warned[id] {
			continue
		}
		l.warned[id] = true
		if l.opts.Log != nil {
			l.opts.Log.Info("configuration key not supported by this jp; ignored", "key", k.Key, "source", k.Source)
		}
	}
	if l.noted || l.opts.Notice == nil {
		return
	}
	l.noted = true
	shown := names
	if len(shown) > 4 {
		shown = append(slices.Clone(shown[:4]), "...")
	}
	fmt.Fprintf(l.opts.Notice, "jp: %d configuration %s not supported by this jp %s ignored (%s); jp config show marks them, -v names each\n",
		len(names), config.Plural(len(names), "key", "keys"), config.Plural(len(names), "was", "were"), safetext.String(strings.Join(shown, ", ")))
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

// maxInstructionFile bounds an instruction file read into the system
// prompt.
const maxInstructionFile = 1 << 20

// projectFiles reads the checkout's instruction files that exist
// (config.ProjectInstructionFiles), in order.
func projectFiles(root string) ([]config.ProjectFile, error) {
	if root == "" {
		return nil, nil
	}
	var out []config.ProjectFile
	for _, name := range config.ProjectInstructionFiles {
		path := filepath.Join(filepath.Clean(root), filepath.FromSlash(name))
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read instructions %s: %w", path, err)
		}
		data, err := io.ReadAll(io.LimitReader(f, maxInstructionFile+1))
		_ = f.Close()
		if err != nil {
			return nil, fmt.Errorf("read instructions %s: %w", path, err)
		}
		if len(data) > maxInstructionFile {
			return nil, fmt.Errorf("instructions %s are larger than %d bytes: shorten the file", path, maxInstructionFile)
		}
		out = append(out, config.ProjectFile{Name: name, Text: string(data)})
	}
	return out, nil
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
	return parseTOML(path, data)
}

// parseTOML parses data, read from source, into a tree; a syntax error
// names source with the line and column.
func parseTOML(source string, data []byte) (map[string]any, error) {
	tree := map[string]any{}
	if err := toml.Unmarshal(data, &tree); err != nil {
		se := &config.SyntaxError{Source: source, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
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
