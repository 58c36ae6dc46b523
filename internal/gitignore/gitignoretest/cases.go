// Package gitignoretest holds the table of trees and listings that pins
// the rules of internal/gitignore: the walker's own tests, its callers'
// tests (attachments of a directory, fs_list_files) and git itself run
// the same table.
package gitignoretest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Case is a tree, a walk of it and the files the walk must list.
type Case struct {
	Name  string
	Files map[string]string // path -> content; "-> target" makes a symlink
	Start string            // "" is "."
	// SkipDotfiles is gitignore.Options.SkipDotfiles.
	SkipDotfiles bool
	// Want is what the walk lists, in order.
	Want []string
	// NotGit marks a case where jp deliberately differs from
	// `git ls-files --others --exclude-standard` (dotfiles skipped, an
	// ignored start walked).
	NotGit bool
}

// Cases is the table. Trees of cases marked SkipDotfiles are walked with
// gitignore.Options.SkipDotfiles, as attachments are.
var Cases = []Case{
	{Name: "no ignore files", Files: map[string]string{"a": "", "d/b": "", "d/e/c": ""},
		Want: []string{"a", "d/b", "d/e/c"}},
	{Name: "name patterns at any depth", Files: map[string]string{".gitignore": "*.log\nbuild\n", "a.go": "", "x.log": "", "d/y.log": "", "build/o": "", "d/build": "", "d/keep": ""},
		Want: []string{".gitignore", "a.go", "d/keep"}},
	{Name: "negation re-includes", Files: map[string]string{".gitignore": "*.log\n!keep.log\n", "x.log": "", "keep.log": "", "d/keep.log": "", "d/z.log": ""},
		Want: []string{".gitignore", "d/keep.log", "keep.log"}},
	{Name: "last matching line wins", Files: map[string]string{".gitignore": "!a.txt\n*.txt\n", "a.txt": "", "b.txt": "", "c.md": ""},
		Want: []string{".gitignore", "c.md"}},
	{Name: "leading slash anchors to the file's directory", Files: map[string]string{".gitignore": "/top.txt\n", "top.txt": "", "d/top.txt": ""},
		Want: []string{".gitignore", "d/top.txt"}},
	{Name: "a middle slash anchors too", Files: map[string]string{".gitignore": "doc/*.txt\n", "doc/a.txt": "", "doc/x/b.txt": "", "d/doc/c.txt": "", "doc/a.md": ""},
		Want: []string{".gitignore", "d/doc/c.txt", "doc/a.md", "doc/x/b.txt"}},
	{Name: "trailing slash matches directories only", Files: map[string]string{".gitignore": "out/\n", "out/a": "", "d/out/b": "", "e/out": ""},
		Want: []string{".gitignore", "e/out"}},
	{Name: "leading **/ matches at any depth", Files: map[string]string{".gitignore": "**/gen/x\n", "gen/x": "", "a/b/gen/x": "", "a/gen/y": ""},
		Want: []string{".gitignore", "a/gen/y"}},
	{Name: "/**/ matches zero or more directories", Files: map[string]string{".gitignore": "a/**/z\n", "a/z": "", "a/b/z": "", "a/b/c/z": "", "a/b/y": "", "q/a/z": ""},
		Want: []string{".gitignore", "a/b/y", "q/a/z"}},
	{Name: "trailing /** ignores everything inside", Files: map[string]string{".gitignore": "logs/**\n", "logs/a": "", "logs/d/b": "", "x/logs/c": ""},
		Want: []string{".gitignore", "x/logs/c"}},
	{Name: "dir/** then a negation keeps the file", Files: map[string]string{".gitignore": "logs/**\n!logs/keep\n", "logs/a": "", "logs/keep": ""},
		Want: []string{".gitignore", "logs/keep"}},
	{Name: "no re-including inside an ignored directory", Files: map[string]string{".gitignore": "build/\n!build/keep\n", "build/keep": "", "build/x": "", "a": ""},
		Want: []string{".gitignore", "a"}},
	{Name: "whitelist: ignore all, re-include directories and .go files", Files: map[string]string{".gitignore": "*\n!*/\n!*.go\n", "a.go": "", "README": "", "d/b.go": "", "d/c.txt": ""},
		Want: []string{"a.go", "d/b.go"}},
	{Name: "a deeper .gitignore wins", Files: map[string]string{".gitignore": "*.txt\n", "a.txt": "", "d/.gitignore": "!*.txt\n", "d/b.txt": "", "d/e/c.txt": ""},
		Want: []string{".gitignore", "d/.gitignore", "d/b.txt", "d/e/c.txt"}},
	{Name: "a nested .gitignore applies only below it", Files: map[string]string{"d/.gitignore": "*.o\n/only\n", "d/x.o": "", "d/e/y.o": "", "z.o": "", "d/only": "", "d/e/only": ""},
		Want: []string{"d/.gitignore", "d/e/only", "z.o"}},
	{Name: "wildcards and classes", Files: map[string]string{".gitignore": "f?le\n[ab].txt\nn[!0-9]\ncl[[:digit:]]x\n", "file": "", "fxle": "", "fiile": "", "a.txt": "", "c.txt": "", "n1": "", "nx": "", "cl5x": "", "clax": ""},
		Want: []string{".gitignore", "c.txt", "clax", "fiile", "n1"}},
	{Name: "malformed patterns match nothing", Files: map[string]string{".gitignore": "a[b\nc\\\n", "a[b": "", "ab": "", "c\\": "", "c": ""},
		Want: []string{".gitignore", "a[b", "ab", "c", "c\\"}},
	{Name: "** inside a name is a plain *", Files: map[string]string{".gitignore": "x**y\n", "xay": "", "x/y": "", "xy": ""},
		Want: []string{".gitignore", "x/y"}},
	{Name: "a/**/ with a trailing slash matches directories only", Files: map[string]string{".gitignore": "a/**/b/\n", "a/b/f": "", "a/c/b/f": "", "a/d/b": ""},
		Want: []string{".gitignore", "a/d/b"}},
	{Name: "a negated directory pattern re-includes the directory", Files: map[string]string{".gitignore": "*/\n!src/\n", "src/a": "", "bin/b": "", "top": ""},
		Want: []string{".gitignore", "src/a", "top"}},
	{Name: "a class with a range and a literal dash", Files: map[string]string{".gitignore": "v[0-2-].txt\n[]]x\n", "v1.txt": "", "v-.txt": "", "v5.txt": "", "]x": "", "ax": ""},
		Want: []string{".gitignore", "ax", "v5.txt"}},
	{Name: "escapes, comments, blank lines, trailing spaces, CRLF", Files: map[string]string{".gitignore": "# a comment\n\n\\#hash\n\\!bang\ntrail   \nsp\\ \r\nstar\\*\n", "#hash": "", "!bang": "", "trail": "", "sp ": "", "star*": "", "stars": "", "# a comment": ""},
		Want: []string{"# a comment", ".gitignore", "stars"}},
	{Name: "info/exclude applies, a .gitignore overrides it", Files: map[string]string{".git/info/exclude": "*.tmp\nsecret\n", ".gitignore": "!keep.tmp\n", "a.tmp": "", "keep.tmp": "", "secret": "", "d/secret": "", "ok": ""},
		Want: []string{".gitignore", "keep.tmp", "ok"}},
	{Name: "start below the root honours the ancestors' .gitignore", Files: map[string]string{".gitignore": "*.log\n/d/e/skip\n", "d/.gitignore": "gen/\n", "d/e/a.log": "", "d/e/skip": "", "d/e/gen/x": "", "d/e/ok": "", "other": ""},
		Start: "d/e", Want: []string{"d/e/ok"}},
	{Name: ".git is never entered, .git files are skipped", Files: map[string]string{".git/config": "", "d/.git": "gitdir: ../x", "d/a": "", ".gitattributes": ""},
		Want: []string{".gitattributes", "d/a"}, NotGit: true},
	{Name: "symlinks are listed, never followed", Files: map[string]string{"real/a": "", "link": "-> real", "file-link": "-> real/a"},
		Want: []string{"file-link", "link", "real/a"}},
	{Name: "SkipDotfiles leaves out names starting with a dot", Files: map[string]string{".gitignore": "*.log\n", ".env": "", ".github/w.yml": "", "a.log": "", "a": "", "d/.hidden": "", "d/b": ""},
		SkipDotfiles: true, Want: []string{"a", "d/b"}, NotGit: true},
	{Name: "SkipDotfiles still walks a dotted start", Files: map[string]string{".github/w.yml": "", ".github/.x": "", "a": ""},
		Start: ".github", SkipDotfiles: true, Want: []string{".github/w.yml"}, NotGit: true},
	{Name: "an ignored start is walked, its content still filtered", Files: map[string]string{".gitignore": "build/\n*.o\n", "build/a": "", "build/b.o": ""},
		Start: "build", Want: []string{"build/a"}, NotGit: true},
}

// MakeTree writes files (path -> content; "-> target" makes a symlink) under a new git repository (when git is
// wanted) or a plain directory.
func MakeTree(t testing.TB, files map[string]string, withGit bool) string {
	t.Helper()
	dir := t.TempDir()
	if withGit {
		if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
	}
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(body, "-> "); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// DocExample is the example of docs/ignored-files.md (docPath): its tree
// (each `gitignore` block starts with "# PATH"; the other files are
// written with their own path as content) and what fs_list_files and
// `jp q -a .` list for it.
func DocExample(t testing.TB, docPath string) (files map[string]string, listFiles, attachments []string) {
	t.Helper()
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string][]string{}
	for _, m := range regexp.MustCompile("(?s)```([a-z_]+)\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		blocks[m[1]] = append(blocks[m[1]], m[2])
	}
	if len(blocks["gitignore"]) == 0 || len(blocks["files"]) != 1 || len(blocks["fs_list_files"]) != 1 || len(blocks["attachments"]) != 1 {
		t.Fatalf("%s: want gitignore blocks and one files, fs_list_files and attachments block; found %v", docPath, blocks)
	}
	files = map[string]string{}
	for _, f := range strings.Fields(blocks["files"][0]) {
		files[f] = f + "\n"
	}
	for _, g := range blocks["gitignore"] {
		name, body, _ := strings.Cut(g, "\n")
		p, ok := strings.CutPrefix(name, "# ")
		if _, listed := files[p]; !ok || !listed {
			t.Fatalf("%s: a gitignore block starts with %q, not \"# PATH\" of a listed file", docPath, name)
		}
		files[p] = body
	}
	return files, strings.Fields(blocks["fs_list_files"][0]), strings.Fields(blocks["attachments"][0])
}
