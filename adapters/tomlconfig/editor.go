package tomlconfig

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// Editor is the ports.ConfigEditor: it edits TOML files as text, so that
// comments and layout survive, and checks the result parses to what it
// meant to write.
type Editor struct{}

var _ ports.ConfigEditor = Editor{}

// NewEditor returns the editor.
func NewEditor() Editor { return Editor{} }

var bareKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

func tomlKey(k string) string {
	if bareKey().MatchString(k) {
		return k
	}
	return strconv.Quote(k)
}

// SetString implements ports.ConfigEditor.
func (e Editor) SetString(ctx context.Context, file string, table []string, key, value string) error {
	return e.Set(ctx, file, table, key, value)
}

// Set implements ports.ConfigEditor.
func (Editor) Set(ctx context.Context, file string, table []string, key string, value any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rendered, err := tomlValue(value)
	if err != nil {
		return fmt.Errorf("set %s.%s: %w", strings.Join(table, "."), key, err)
	}
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read configuration file %s: %w", file, err)
	}
	if _, err := parseTOML(file, data); err != nil {
		return err
	}
	segs := make([]string, len(table))
	for i, t := range table {
		segs[i] = tomlKey(t)
	}
	header := "[" + strings.Join(segs, ".") + "]"
	line := tomlKey(key) + " = " + rendered
	var out string
	if len(table) == 0 {
		out = setTopLine(string(data), tomlKey(key), line)
	} else {
		out = setLine(string(data), header, tomlKey(key), line)
	}
	if err := checkSet(out, table, key, value); err != nil {
		return fmt.Errorf("cannot set %s in %s (the file defines that table in a form jp does not edit: %v); add %s under %s by hand", config.JoinPath(append(slices.Clone(table), key)...), file, err, line, header)
	}
	return writeAtomic(file, []byte(out))
}

// tomlValue renders a value as the right-hand side of a TOML key.
func tomlValue(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v), nil
	case bool, int64, int, float64, []any, []string:
		b, err := toml.Marshal(map[string]any{"v": v})
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(strings.TrimPrefix(string(b), "v = ")), nil
	}
	return "", fmt.Errorf("a value of type %T cannot be written as one key", v)
}

// setTopLine replaces or adds a top-level key's line (before the first
// table).
func setTopLine(text, key, line string) string {
	lines := strings.Split(text, "\n")
	keyRE := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=`)
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "[") {
			out := append([]string{}, lines[:i]...)
			out = append(out, line)
			return strings.Join(append(out, lines[i:]...), "\n")
		}
		if keyRE.MatchString(l) {
			lines[i] = line
			return strings.Join(lines, "\n")
		}
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + line + "\n"
}

// setLine replaces or adds key's line in the table under header, or
// appends the table.
func setLine(text, header, key, line string) string {
	lines := strings.Split(text, "\n")
	headerRE := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(header) + `\s*(#.*)?$`)
	keyRE := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=`)
	for i, l := range lines {
		if !headerRE.MatchString(l) {
			continue
		}
		j := i + 1
		for ; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if strings.HasPrefix(t, "[") {
				break
			}
			if keyRE.MatchString(lines[j]) {
				lines[j] = line
				return strings.Join(lines, "\n")
			}
		}
		out := append([]string{}, lines[:i+1]...)
		out = append(out, line)
		return strings.Join(append(out, lines[i+1:]...), "\n")
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return text + header + "\n" + line + "\n"
}

// checkSet parses text and checks table.key == value.
func checkSet(text string, table []string, key string, value any) error {
	tree, err := parseTOML("the edited file", []byte(text))
	if err != nil {
		return err
	}
	var cur any = tree
	for _, t := range table {
		m, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not a table", t)
		}
		cur = m[t]
	}
	m, ok := cur.(map[string]any)
	if !ok || !config.SameValue(m[key], value) {
		return errors.New("the edit did not take")
	}
	return nil
}

// writeAtomic writes data to path through a synced temporary file and a
// rename (the file keeps its mode; a new one is 0644), then syncs the
// directory (best effort: the file is in place either way).
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write configuration file %s: %w", path, err)
	}
	// A temp file a killed write left beside it (.config.toml.tmp-...)
	// goes with this write.
	atomicfile.Sweep(filepath.Dir(path), atomicfile.StaleAge)
	if err := atomicfile.Replace(path, data, atomicfile.Options{Perm: 0o644}); err != nil {
		return fmt.Errorf("write configuration file %s: %w", path, err)
	}
	_ = atomicfile.SyncDir(atomicfile.OS, filepath.Dir(path))
	return nil
}
