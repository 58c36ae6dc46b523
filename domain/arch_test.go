// Package domain_test pins the rule of the house: domain packages import
// only the standard library's pure packages (docs/architecture.md).
package domain_test

import (
	"go/parser"
	"go/token"
	"io/fs"
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
