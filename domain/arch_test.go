// Package domain_test pins the rule of the house: domain packages import
// only the standard library's pure packages (docs/architecture.md).
package domain_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// forbidden are standard-library packages that do I/O or touch the process.
var forbidden = map[string]bool{
	"os": true, "os/exec": true, "os/signal": true, "net": true, "net/http": true,
	"io/ioutil": true, "io/fs": true, "path/filepath": true, "syscall": true,
	"log": true, "log/slog": true, "crypto/rand": true, "math/rand": true, "math/rand/v2": true,
}

// formatImports are standard-library packages of file and wire formats:
// base64 fields and buffered (line or chunk) reading belong to the
// adapter that stores or carries the bytes (adapters/eventcodec,
// adapters/fsstore; docs/architecture.md, "Where each format lives").
var formatImports = map[string]string{
	"encoding/base64": "base64 is a stored form's spelling (adapters/eventcodec)",
	"bufio":           "buffered reading is the storage adapter's (adapters/eventcodec, adapters/fsstore)",
}

// chunkedReading are the io types a reader of a file a piece at a time
// needs: the chunked reader of events.json lives in adapters/eventcodec.
var chunkedReading = map[string]bool{"ReadSeeker": true, "Seeker": true, "ReaderAt": true, "SectionReader": true, "ReadSeekCloser": true}

// layoutAllowed are the domain files that may spell a time layout, and
// why: none of them is a file format.
var layoutAllowed = map[string]string{
	filepath.Join("timespec", "timespec.go"): "a date the user types on the command line (--since 2026-01-01)",
}

func TestDomainImportsNoIO(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			first := strings.SplitN(p, "/", 2)[0]
			switch {
			case forbidden[p]:
				t.Errorf("%s imports %s: the domain does no I/O", path, p)
			case formatImports[p] != "":
				t.Errorf("%s imports %s: the domain holds no file or wire format: %s", path, p, formatImports[p])
			case strings.Contains(first, "."):
				if !strings.HasPrefix(p, "github.com/jpcli/jp/domain/") {
					t.Errorf("%s imports %s: the domain imports only the standard library", path, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDomainSpellsNoFileFormat: no time layout of a file format (a string
// literal spelling Go's reference time, "2006-01-02 15:04:05.000000") and
// no chunked reading (io.ReadSeeker and friends) in domain/: the stored
// forms live in adapters/eventcodec.
func TestDomainSpellsNoFileFormat(t *testing.T) {
	for _, v := range domainFormatViolations(t, ".") {
		t.Error(v)
	}
}

// TestFormatBanCatchesAPlantedViolation: the scan above finds a layout
// string, a base64 import and a chunked reader planted in a domain-like
// tree, so that its silence on domain/ means something.
func TestFormatBanCatchesAPlantedViolation(t *testing.T) {
	dir := t.TempDir()
	planted := `package planted

import (
	"encoding/base64"
	"io"
	"time"
)

func stamp(t time.Time) string { return t.Format("2006-01-02 15:04:05.000000") }

func read(r io.ReadSeeker) string { return base64.StdEncoding.EncodeToString(nil) }
`
	if err := os.WriteFile(filepath.Join(dir, "planted.go"), []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(domainFormatViolations(t, dir), "\n")
	for _, want := range []string{"time layout", "encoding/base64", "io.ReadSeeker"} {
		if !strings.Contains(got, want) {
			t.Errorf("planted %s not found; the scan said:\n%s", want, got)
		}
	}
}

// domainFormatViolations scans the Go files (tests excepted) under root.
func domainFormatViolations(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); formatImports[p] != "" {
				out = append(out, fmt.Sprintf("%s imports %s: %s", path, p, formatImports[p]))
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.STRING && isTimeLayout(n.Value) && layoutAllowed[path] == "" {
					out = append(out, fmt.Sprintf("%s: time layout %s: a file format's timestamp spelling belongs to adapters/eventcodec", fset.Position(n.Pos()), n.Value))
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "io" && chunkedReading[n.Sel.Name] {
					out = append(out, fmt.Sprintf("%s: io.%s: chunked reading belongs to adapters/eventcodec", fset.Position(n.Pos()), n.Sel.Name))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// isTimeLayout reports whether a string literal spells Go's reference
// time (a layout for time.Format or time.Parse).
func isTimeLayout(lit string) bool {
	return strings.Contains(lit, "2006") && (strings.Contains(lit, "01") || strings.Contains(lit, "Jan")) ||
		strings.Contains(lit, "15:04")
}

// TestPluginDomainHasNoCodec: domain/plugin is the protocol's model (its
// messages, their Validate rules, the manifest, routing, admission); the
// wire codec (a message as a JSON line and back, the fast paths) is
// adapters/pluginwire's. So domain/plugin exports no top-level function
// named Encode*, Decode*, Marshal* or Unmarshal* (a type's own
// MarshalJSON or UnmarshalText method is its model's spelling, and is
// allowed), and calls no json.Marshal or json.NewEncoder: writing a
// message is the codec's.
func TestPluginDomainHasNoCodec(t *testing.T) {
	for _, v := range pluginCodecViolations(t, "plugin") {
		t.Error(v)
	}
}

// TestPluginCodecBanCatchesAPlantedViolation: the scan above finds an
// exported decoder and an encoding call planted in a plugin-like tree.
func TestPluginCodecBanCatchesAPlantedViolation(t *testing.T) {
	dir := t.TempDir()
	planted := `package planted

import "encoding/json"

type M struct{}

func (M) MarshalJSON() ([]byte, error) { return nil, nil }

func DecodeHeader(b []byte) error { return json.Unmarshal(b, &M{}) }

func write(m M) []byte { b, _ := json.Marshal(m); return b }
`
	if err := os.WriteFile(filepath.Join(dir, "planted.go"), []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	got := pluginCodecViolations(t, dir)
	joined := strings.Join(got, "\n")
	for _, want := range []string{"DecodeHeader", "json.Marshal"} {
		if !strings.Contains(joined, want) {
			t.Errorf("planted %s not found; the scan said:\n%s", want, joined)
		}
	}
	if len(got) != 2 {
		t.Errorf("found %d violations, want 2 (the MarshalJSON method is allowed):\n%s", len(got), joined)
	}
}

// codecFuncPrefixes are the names of a codec's entry points.
var codecFuncPrefixes = []string{"Encode", "Decode", "Marshal", "Unmarshal"}

// pluginCodecViolations scans the Go files (tests excepted) under root.
func pluginCodecViolations(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				for _, p := range codecFuncPrefixes {
					if n.Recv == nil && n.Name.IsExported() && strings.HasPrefix(n.Name.Name, p) {
						out = append(out, fmt.Sprintf("%s: func %s: the plugin wire codec is adapters/pluginwire's", fset.Position(n.Pos()), n.Name.Name))
					}
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "json" && (n.Sel.Name == "Marshal" || n.Sel.Name == "NewEncoder") {
					out = append(out, fmt.Sprintf("%s: json.%s: encoding a plugin message is adapters/pluginwire's", fset.Position(n.Pos()), n.Sel.Name))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
