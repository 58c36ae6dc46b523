package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestsThatRunJPAreParallel keeps the package's tests overlapping: Go
// runs the sequential top-level tests one after the other before any
// parallel test starts, so one that runs jp (or any process) holds up
// every tmux test and script behind it. A top-level test that starts a
// process must call t.Parallel (newTmuxWorld and eachWidth do it for the
// tmux tests) unless it needs t.Setenv or t.Chdir, which forbid it.
func TestTestsThatRunJPAreParallel(t *testing.T) {
	t.Parallel()
	runs := []string{"newJPEnv(", "buildJPBinary(", "newPluginSandbox(", "newPromptSandbox(", "exec.Command", "testscript.Run("}
	parallel := []string{"t.Parallel()", "parallel(t)", "newTmuxWorld(", "eachWidth(", "t.Setenv(", "t.Chdir("}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil {
				continue
			}
			body := string(src[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset])
			if containsAny(body, runs) && !containsAny(body, parallel) {
				t.Errorf("%s: %s starts a process but does not call t.Parallel: it holds up every parallel test of the package", name, fn.Name.Name)
			}
		}
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
