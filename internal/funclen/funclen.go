// Package funclen measures the length of every function in the module, so a
// test can hold each one to a limit (funclen_test.go).
//
// A function's length is the number of lines from its func keyword to its
// closing brace. One rule exempts table-driven test data: in a _test.go
// file, the lines a composite literal spans beyond its first are not
// counted (a table of cases counts as one line), since a table grows by
// rows, not by steps a reader must follow. A function literal inside such
// a table (a case's scripted steps) is measured as a function of its own,
// named after the enclosing one, so a long procedure cannot hide in a
// table. Production code gets no such exemption.
//
// Generated code is skipped: any file whose header carries the standard
// "Code generated ... DO NOT EDIT." line (this covers wire_gen.go and the
// moq mocks), and everything under mocks/ and testdata/ directories.
package funclen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Func is one measured function.
type Func struct {
	Name  string // Recv.Name for a method, Name for a function
	File  string // path relative to the scanned root, slash separated
	Line  int    // line of the func keyword
	Lines int    // counted length (see the package comment)
}

func (f Func) String() string {
	return fmt.Sprintf("%s:%d: %s is %d lines", f.File, f.Line, f.Name, f.Lines)
}

// Scan measures every function declared in the non-generated .go files
// under root, longest first.
func Scan(root string) ([]Func, error) {
	var out []Func
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		funcs, err := scanFile(root, path)
		out = append(out, funcs...)
		return err
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Lines != out[j].Lines {
			return out[i].Lines > out[j].Lines
		}
		return out[i].File+out[i].Name < out[j].File+out[j].Name
	})
	return out, err
}

// skipDir tells which directories hold no hand-written Go of the module:
// generated mocks, test data, hidden and vendored trees.
func skipDir(name string) bool {
	return name == "mocks" || name == "testdata" || name == "vendor" ||
		name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

func scanFile(root, path string) ([]Func, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return nil, err
	}
	isTest := strings.HasSuffix(path, "_test.go")
	var out []Func
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		name, file := funcName(fn), filepath.ToSlash(rel)
		n, closures := length(fset, fn, isTest)
		out = append(out, Func{Name: name, File: file, Line: fset.Position(fn.Pos()).Line, Lines: n})
		for _, c := range closures {
			start, end := fset.Position(c.Pos()).Line, fset.Position(c.End()).Line
			out = append(out, Func{Name: name + " (a closure in a table)", File: file, Line: start, Lines: end - start + 1})
		}
	}
	return out, nil
}

// funcName spells a method as Recv.Name (pointer and type parameters
// dropped) and a function as its name.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

// length counts fn's lines; in a test file the lines a composite literal
// spans beyond its first are not counted (outermost literals only, so a
// nested one is not subtracted twice), and the function literals inside
// such literals are returned, to be measured on their own.
func length(fset *token.FileSet, fn *ast.FuncDecl, isTest bool) (int, []*ast.FuncLit) {
	start := fset.Position(fn.Pos()).Line
	end := fset.Position(fn.End()).Line
	n := end - start + 1
	if !isTest {
		return n, nil
	}
	var closures []*ast.FuncLit
	ast.Inspect(fn.Body, func(node ast.Node) bool {
		lit, ok := node.(*ast.CompositeLit)
		if !ok {
			return true
		}
		n -= fset.Position(lit.End()).Line - fset.Position(lit.Pos()).Line
		closures = append(closures, funcLits(lit)...)
		return false
	})
	return n, closures
}

// funcLits are the outermost function literals inside lit.
func funcLits(lit *ast.CompositeLit) []*ast.FuncLit {
	var out []*ast.FuncLit
	ast.Inspect(lit, func(node ast.Node) bool {
		if f, ok := node.(*ast.FuncLit); ok {
			out = append(out, f)
			return false
		}
		return true
	})
	return out
}
