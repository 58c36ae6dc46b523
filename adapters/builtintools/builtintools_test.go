package builtintools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// tree writes files (path -> content) under a new temp dir.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// snapshot hashes every file, dir and symlink under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "link:" + l
		case d.IsDir():
			out[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			out[rel] = hex.EncodeToString(h[:])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Fatalf("tree changed: %d entries before, %d after\nbefore %v\nafter  %v", len(before), len(after), before, after)
	}
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("tree changed at %s", k)
		}
	}
}

// server enables every built-in tool (with extra settings per tool).
func server(t *testing.T, dir string, extra map[string]config.Tool) *Server {
	t.Helper()
	cfg := config.Default()
	for _, n := range Names {
		cfg.Conversation.Tools.Named[n] = extra[n]
	}
	s := New(cfg, dir)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func call(t *testing.T, s *Server, name string, args any) ports.ToolResult {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Call(context.Background(), name, b)
	if err != nil {
		t.Fatalf("%s: server error: %v", name, err)
	}
	return r
}

type toolCase struct {
	name    string
	files   map[string]string
	tool    string
	args    any
	isError bool
	want    []string          // substrings of the result
	notWant []string          // substrings the result must not hold
	after   map[string]string // files (content) after the call; "" = gone
}

func runCases(t *testing.T, cases []toolCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := tree(t, tc.files)
			before := snapshot(t, dir)
			s := server(t, dir, nil)
			r := call(t, s, tc.tool, tc.args)
			if r.IsError != tc.isError {
				t.Fatalf("IsError = %v, want %v; content:\n%s", r.IsError, tc.isError, r.Content)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Content, w) {
					t.Errorf("result lacks %q:\n%s", w, r.Content)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(r.Content, w) {
					t.Errorf("result holds %q:\n%s", w, r.Content)
				}
			}
			if tc.isError || (!IsWrite(tc.tool) && tc.tool != Shell) {
				sameTree(t, before, snapshot(t, dir))
			}
			for p, want := range tc.after {
				b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				switch {
				case want == "" && !os.IsNotExist(err):
					t.Errorf("%s still exists", p)
				case want != "" && (err != nil || string(b) != want):
					t.Errorf("%s = %q (%v), want %q", p, b, err, want)
				}
			}
		})
	}
}

var huge = strings.Repeat("a line of a huge file\n", 5000)

func TestReadFile(t *testing.T) {
	t.Parallel()
	runCases(t, []toolCase{
		{name: "happy", files: map[string]string{"a.txt": "one\ntwo\n"}, tool: ReadFile, args: map[string]any{"path": "a.txt"}, want: []string{"one\ntwo\n"}},
		{name: "range", files: map[string]string{"a.txt": "1\n2\n3\n4\n"}, tool: ReadFile, args: map[string]any{"path": "a.txt", "start_line": 2, "end_line": 3}, want: []string{"[a.txt: lines 2-3 of 4]\n2\n3\n"}, notWant: []string{"4\n"}},
		{name: "missing file", tool: ReadFile, args: map[string]any{"path": "nope.txt"}, isError: true, want: []string{"nope.txt does not exist"}},
		{name: "binary file", files: map[string]string{"b.bin": "ab\x00cd"}, tool: ReadFile, args: map[string]any{"path": "b.bin"}, isError: true, want: []string{"binary file"}},
		{name: "huge file is paged", files: map[string]string{"h.txt": huge}, tool: ReadFile, args: map[string]any{"path": "h.txt"}, want: []string{"lines 1-2000 of 5000 shown; call fs_read_file with start_line 2001"}},
		{name: "huge file next page", files: map[string]string{"h.txt": huge}, tool: ReadFile, args: map[string]any{"path": "h.txt", "start_line": 4001}, want: []string{"[h.txt: lines 4001-5000 of 5000]"}},
		{name: "gitignored file is still readable by path", files: map[string]string{".gitignore": "secret.txt\n", "secret.txt": "s\n"}, tool: ReadFile, args: map[string]any{"path": "secret.txt"}, want: []string{"s\n"}},
		{name: "directory", files: map[string]string{"d/a": "x"}, tool: ReadFile, args: map[string]any{"path": "d"}, isError: true, want: []string{"is a directory"}},
		{name: "unknown argument", files: map[string]string{"a": "x"}, tool: ReadFile, args: map[string]any{"path": "a", "lines": 3}, isError: true, want: []string{"unknown field \"lines\""}},
	})
}

func TestListFiles(t *testing.T) {
	t.Parallel()
	many := map[string]string{}
	for i := range 2100 {
		many[filepath.Join("m", strings.Repeat("x", 1+i%7)+"-"+strconv.Itoa(i))] = "x"
	}
	runCases(t, []toolCase{
		{name: "happy", files: map[string]string{"a.go": "", "d/b.go": "", "d/c.md": ""}, tool: ListFiles, args: map[string]any{}, want: []string{"a.go\nd/b.go\nd/c.md\n"}},
		{name: "glob", files: map[string]string{"a.go": "", "d/b.go": "", "d/c.md": ""}, tool: ListFiles, args: map[string]any{"pattern": "*.go"}, want: []string{"a.go\nd/b.go\n"}, notWant: []string{"c.md"}},
		{name: "under a path", files: map[string]string{"a.go": "", "d/b.go": ""}, tool: ListFiles, args: map[string]any{"path": "d"}, want: []string{"d/b.go"}, notWant: []string{"a.go"}},
		{name: "missing dir", tool: ListFiles, args: map[string]any{"path": "nope"}, isError: true, want: []string{"nope does not exist"}},
		{name: "gitignore", files: map[string]string{".gitignore": "build/\n*.log\n", "a.go": "", "build/out": "", "x.log": "", "sub/.gitignore": "gen.go\n", "sub/gen.go": "", "sub/keep.go": "", ".git/config": ""}, tool: ListFiles, args: map[string]any{}, want: []string{"a.go", "sub/keep.go"}, notWant: []string{"build/out", "x.log", "sub/gen.go", ".git/config"}},
		{name: "binary files are listed", files: map[string]string{"b.bin": "\x00"}, tool: ListFiles, args: map[string]any{}, want: []string{"b.bin"}},
		{name: "huge listing is capped", files: many, tool: ListFiles, args: map[string]any{}, want: []string{"[… 100 more files not shown"}},
	})
}

func TestGrepFiles(t *testing.T) {
	t.Parallel()
	runCases(t, []toolCase{
		{name: "happy", files: map[string]string{"a.go": "package a\nfunc Foo() {}\n", "b.go": "package b\n"}, tool: GrepFiles, args: map[string]any{"pattern": "func \\w+"}, want: []string{"a.go:2:func Foo() {}"}, notWant: []string{"b.go"}},
		{name: "context", files: map[string]string{"a.txt": "1\n2\nX\n4\n5\n"}, tool: GrepFiles, args: map[string]any{"pattern": "X", "context": 1}, want: []string{"a.txt-2-2\na.txt:3:X\na.txt-4-4\n"}},
		{name: "path filter", files: map[string]string{"a.go": "hit\n", "b.md": "hit\n"}, tool: GrepFiles, args: map[string]any{"pattern": "hit", "paths": []string{"*.md"}}, want: []string{"b.md:1:hit"}, notWant: []string{"a.go"}},
		{name: "no match", files: map[string]string{"a.go": "x\n"}, tool: GrepFiles, args: map[string]any{"pattern": "zzz"}, want: []string{"No matches."}},
		{name: "bad regex", tool: GrepFiles, args: map[string]any{"pattern": "("}, isError: true, want: []string{"not a valid regular expression"}},
		{name: "binary file skipped", files: map[string]string{"b.bin": "hit\x00", "a.txt": "hit\n"}, tool: GrepFiles, args: map[string]any{"pattern": "hit"}, want: []string{"a.txt:1:hit"}, notWant: []string{"b.bin"}},
		{name: "huge output capped", files: map[string]string{"h.txt": huge}, tool: GrepFiles, args: map[string]any{"pattern": "huge", "max_matches": 10}, want: []string{"h.txt:10:", "stopped at 10 matches"}, notWant: []string{"h.txt:11:"}},
		{name: "gitignore", files: map[string]string{".gitignore": "vendor/\n", "vendor/x.go": "hit\n", "a.go": "hit\n"}, tool: GrepFiles, args: map[string]any{"pattern": "hit"}, want: []string{"a.go:1:hit"}, notWant: []string{"vendor"}},
		{name: "missing pattern", tool: GrepFiles, args: map[string]any{}, isError: true, want: []string{"pattern is required"}},
	})
}

func TestCreateFile(t *testing.T) {
	t.Parallel()
	runCases(t, []toolCase{
		{name: "happy", tool: CreateFile, args: map[string]any{"path": "d/new.txt", "content": "hi\n"}, want: []string{"Done: create d/new.txt (1 lines)", "+++ b/d/new.txt", "+hi"}, after: map[string]string{"d/new.txt": "hi\n"}},
		{name: "exists", files: map[string]string{"a.txt": "x"}, tool: CreateFile, args: map[string]any{"path": "a.txt", "content": "y"}, isError: true, want: []string{"already exists"}},
		{name: "binary content is written as is", tool: CreateFile, args: map[string]any{"path": "b.bin", "content": "a\x00b"}, after: map[string]string{"b.bin": "a\x00b"}},
		{name: "huge content", tool: CreateFile, args: map[string]any{"path": "h.txt", "content": huge}, want: []string{"create h.txt (5000 lines)"}, after: map[string]string{"h.txt": huge}},
		{name: "into a gitignored dir", files: map[string]string{".gitignore": "out/\n"}, tool: CreateFile, args: map[string]any{"path": "out/x", "content": "y"}, after: map[string]string{"out/x": "y"}},
	})
}

func TestModifyFile(t *testing.T) {
	t.Parallel()
	runCases(t, []toolCase{
		{name: "happy", files: map[string]string{"a.txt": "one\ntwo\nthree\n"}, tool: ModifyFile,
			args:  map[string]any{"patterns": []map[string]any{{"old": "two", "new": "TWO", "paths": []string{"a.txt"}}}},
			want:  []string{"Done: modify a.txt (1 replacement)", "-two\n+TWO\n"},
			after: map[string]string{"a.txt": "one\nTWO\nthree\n"}},
		{name: "several files and patterns", files: map[string]string{"a.txt": "x1 y1\n", "b.txt": "x1\n"}, tool: ModifyFile,
			args:  map[string]any{"patterns": []map[string]any{{"old": "x1", "new": "x2", "paths": []string{"a.txt", "b.txt"}}, {"old": "y1", "new": "y2", "paths": []string{"a.txt"}}}},
			after: map[string]string{"a.txt": "x2 y2\n", "b.txt": "x2\n"}},
		{name: "missing file", tool: ModifyFile, args: map[string]any{"patterns": []map[string]any{{"old": "a", "new": "b", "paths": []string{"nope"}}}}, isError: true, want: []string{"nope does not exist"}},
		{name: "missing text writes nothing", files: map[string]string{"a.txt": "x1\n", "b.txt": "zz\n"}, tool: ModifyFile,
			args: map[string]any{"patterns": []map[string]any{{"old": "x1", "new": "x2", "paths": []string{"a.txt", "b.txt"}}}}, isError: true, want: []string{"was not found in b.txt; nothing was changed"}},
		{name: "ambiguous replacement writes nothing", files: map[string]string{"a.txt": "dup\ndup\n"}, tool: ModifyFile,
			args: map[string]any{"patterns": []map[string]any{{"old": "dup", "new": "x", "paths": []string{"a.txt"}}}}, isError: true, want: []string{"occurs 2 times in a.txt; nothing was changed"}},
		{name: "binary file", files: map[string]string{"b.bin": "a\x00b"}, tool: ModifyFile,
			args: map[string]any{"patterns": []map[string]any{{"old": "a", "new": "c", "paths": []string{"b.bin"}}}}, isError: true, want: []string{"binary file"}},
		{name: "huge file", files: map[string]string{"h.txt": huge + "the end\n"}, tool: ModifyFile,
			args: map[string]any{"patterns": []map[string]any{{"old": "the end", "new": "THE END", "paths": []string{"h.txt"}}}}, want: []string{"@@ -4998,4 +4998,4 @@", "+THE END"}, after: map[string]string{"h.txt": huge + "THE END\n"}},
		{name: "gitignored file may be modified", files: map[string]string{".gitignore": "*.log\n", "x.log": "a\n"}, tool: ModifyFile,
			args: map[string]any{"patterns": []map[string]any{{"old": "a", "new": "b", "paths": []string{"x.log"}}}}, after: map[string]string{"x.log": "b\n"}},
		{name: "empty patterns", tool: ModifyFile, args: map[string]any{"patterns": []any{}}, isError: true, want: []string{"patterns is empty"}},
	})
}

func TestDeleteAndMoveFile(t *testing.T) {
	t.Parallel()
	runCases(t, []toolCase{
		{name: "delete happy", files: map[string]string{"a.txt": "x\n"}, tool: DeleteFile, args: map[string]any{"path": "a.txt"}, want: []string{"delete a.txt (1 lines)", "+++ /dev/null", "-x"}, after: map[string]string{"a.txt": ""}},
		{name: "delete missing", tool: DeleteFile, args: map[string]any{"path": "a.txt"}, isError: true, want: []string{"does not exist"}},
		{name: "delete binary", files: map[string]string{"b.bin": "\x00\x01"}, tool: DeleteFile, args: map[string]any{"path": "b.bin"}, after: map[string]string{"b.bin": ""}},
		{name: "delete gitignored", files: map[string]string{".gitignore": "*.log\n", "x.log": "a\n"}, tool: DeleteFile, args: map[string]any{"path": "x.log"}, after: map[string]string{"x.log": ""}},
		{name: "delete huge", files: map[string]string{"h.txt": huge}, tool: DeleteFile, args: map[string]any{"path": "h.txt"}, want: []string{"delete h.txt (5000 lines)"}, after: map[string]string{"h.txt": ""}},
		{name: "move happy", files: map[string]string{"a.txt": "x\n"}, tool: MoveFile, args: map[string]any{"path": "a.txt", "new_path": "d/b.txt"}, want: []string{"move a.txt to d/b.txt", "rename to d/b.txt"}, after: map[string]string{"a.txt": "", "d/b.txt": "x\n"}},
		{name: "move onto existing", files: map[string]string{"a.txt": "x", "b.txt": "y"}, tool: MoveFile, args: map[string]any{"path": "a.txt", "new_path": "b.txt"}, isError: true, want: []string{"b.txt already exists"}},
		{name: "move missing", tool: MoveFile, args: map[string]any{"path": "a.txt", "new_path": "b.txt"}, isError: true, want: []string{"a.txt does not exist"}},
		{name: "move binary", files: map[string]string{"b.bin": "\x00"}, tool: MoveFile, args: map[string]any{"path": "b.bin", "new_path": "c.bin"}, after: map[string]string{"c.bin": "\x00"}},
	})
}

func TestShell(t *testing.T) {
	t.Parallel()
	runCases(t, []toolCase{
		{name: "happy runs in the checkout", files: map[string]string{"a.txt": "x"}, tool: Shell, args: map[string]any{"command": "ls; echo err >&2"}, want: []string{"a.txt", "err"}},
		{name: "exit status", tool: Shell, args: map[string]any{"command": "exit 3"}, isError: true, want: []string{"[exit status 3]"}},
		{name: "huge output is cut", tool: Shell, args: map[string]any{"command": "yes | head -c 200000"}, want: []string{"[output cut at 65536 bytes]"}},
		{name: "timeout", tool: Shell, args: map[string]any{"command": "sleep 30", "timeout_secs": 1}, isError: true, want: []string{"stopped after 1s"}},
	})
}

func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed (.ci/install-deps installs it)")
	}
	dir := tree(t, files)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first commit"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func TestGitTools(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t, map[string]string{"a.txt": "one\n", ".gitignore": "*.log\n"})
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.log"), []byte("ignored\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	s := server(t, dir, nil)
	for _, tc := range []struct {
		tool    string
		args    any
		isError bool
		want    []string
		notWant []string
	}{
		{GitStatus, map[string]any{}, false, []string{"## main", " M a.txt"}, []string{"x.log"}},
		{GitDiff, map[string]any{}, false, []string{"-one", "+two"}, nil},
		{GitDiff, map[string]any{"staged": true}, false, []string{"No changes."}, nil},
		{GitLog, map[string]any{"max_count": 5}, false, []string{"first commit", " T"}, nil},
		{GitLog, map[string]any{"paths": []string{"../x"}}, true, []string{"outside the checkout"}, nil},
	} {
		r := call(t, s, tc.tool, tc.args)
		if r.IsError != tc.isError {
			t.Fatalf("%s %v: IsError = %v\n%s", tc.tool, tc.args, r.IsError, r.Content)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.Content, w) {
				t.Errorf("%s %v lacks %q:\n%s", tc.tool, tc.args, w, r.Content)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(r.Content, w) {
				t.Errorf("%s %v holds %q:\n%s", tc.tool, tc.args, w, r.Content)
			}
		}
	}
	sameTree(t, before, snapshot(t, dir))
}

// TestConfinement: every way out of the checkout, and every write into
// .git/ or .jp/, is refused with an error the model reads, and the tree
// (and what lies outside it) is byte-identical afterwards.
func TestConfinement(t *testing.T) {
	t.Parallel()
	outer := t.TempDir()
	secret := filepath.Join(outer, "secret.txt")
	if err := os.WriteFile(secret, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(outer, "checkout")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, c := range map[string]string{".git/config": "[core]\n", ".jp/config.toml": "", "a.txt": "inside\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Symlink(secret, filepath.Join(dir, "out-link")))
	must(t, os.Symlink(outer, filepath.Join(dir, "out-dir")))
	must(t, os.Symlink(".git", filepath.Join(dir, "git-dir")))
	before := snapshot(t, outer)
	s := server(t, dir, nil)
	mod := func(p string) map[string]any {
		return map[string]any{"patterns": []map[string]any{{"old": "[core]", "new": "[x]", "paths": []string{p}}}}
	}
	for _, tc := range []struct {
		name string
		tool string
		args any
		want string
	}{
		{"read ../", ReadFile, map[string]any{"path": "../secret.txt"}, "leads outside the checkout"},
		{"read absolute", ReadFile, map[string]any{"path": secret}, "is outside the checkout"},
		{"read symlink-out", ReadFile, map[string]any{"path": "out-link"}, "leads outside the checkout (through a symlink)"},
		{"read through dir symlink-out", ReadFile, map[string]any{"path": "out-dir/secret.txt"}, "leads outside the checkout"},
		{"list ../", ListFiles, map[string]any{"path": ".."}, "leads outside the checkout"},
		{"list symlink-out dir", ListFiles, map[string]any{"path": "out-dir"}, "leads outside the checkout"},
		{"grep ../", GrepFiles, map[string]any{"pattern": "outside", "paths": []string{"../*"}}, "leads outside the checkout"},
		{"create ../", CreateFile, map[string]any{"path": "../new.txt", "content": "x"}, "leads outside the checkout"},
		{"create absolute", CreateFile, map[string]any{"path": filepath.Join(outer, "new.txt"), "content": "x"}, "is outside the checkout"},
		{"create through dir symlink-out", CreateFile, map[string]any{"path": "out-dir/new.txt", "content": "x"}, "leads outside the checkout"},
		{"modify symlink-out", ModifyFile, map[string]any{"patterns": []map[string]any{{"old": "outside", "new": "pwned", "paths": []string{"out-link"}}}}, "leads outside the checkout"},
		{"modify .git/config", ModifyFile, mod(".git/config"), "inside .git/ or .jp/"},
		{"modify .git/config via symlinked dir", ModifyFile, mod("git-dir/config"), "leads into .git/ or .jp/"},
		{"create in .jp", CreateFile, map[string]any{"path": ".jp/x.toml", "content": "x"}, "inside .git/ or .jp/"},
		{"delete .git/config", DeleteFile, map[string]any{"path": ".git/config"}, "inside .git/ or .jp/"},
		{"delete ../", DeleteFile, map[string]any{"path": "../secret.txt"}, "leads outside the checkout"},
		{"move out", MoveFile, map[string]any{"path": "a.txt", "new_path": "../a.txt"}, "leads outside the checkout"},
		{"move in from out", MoveFile, map[string]any{"path": "../secret.txt", "new_path": "s.txt"}, "leads outside the checkout"},
		{"move into .git", MoveFile, map[string]any{"path": "a.txt", "new_path": ".git/hooks/pre-commit"}, "inside .git/ or .jp/"},
		// A case-insensitive file system (macOS, Windows) opens .git for
		// .GIT; HFS+ ignores zero-width characters; Windows drops trailing
		// dots and spaces.
		{"create .GIT/hooks", CreateFile, map[string]any{"path": ".GIT/hooks/pre-commit", "content": "x"}, "inside .git/ or .jp/"},
		{"create .Jp/config.toml", CreateFile, map[string]any{"path": ".Jp/config.toml", "content": "x"}, "inside .git/ or .jp/"},
		{"create sub/.gIt/config", CreateFile, map[string]any{"path": "sub/.gIt/config", "content": "x"}, "inside .git/ or .jp/"},
		{"create .g<ZWNJ>it", CreateFile, map[string]any{"path": ".g\u200cit/hooks/pre-commit", "content": "x"}, "inside .git/ or .jp/"},
		{"create .git. (trailing dot)", CreateFile, map[string]any{"path": ".git./hooks/pre-commit", "content": "x"}, "inside .git/ or .jp/"},
		{"create GIT~1", CreateFile, map[string]any{"path": "GIT~1/hooks/pre-commit", "content": "x"}, "inside .git/ or .jp/"},
		{"move into .JP", MoveFile, map[string]any{"path": "a.txt", "new_path": ".JP/config.toml"}, "inside .git/ or .jp/"},
		{"git diff ../", GitDiff, map[string]any{"paths": []string{"../secret.txt"}}, "leads outside the checkout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, s, tc.tool, tc.args)
			if !r.IsError || !strings.Contains(r.Content, tc.want) {
				t.Fatalf("IsError = %v, content %q; want an error with %q", r.IsError, r.Content, tc.want)
			}
			if strings.Contains(r.Content, "pwned") || strings.Contains(r.Content, "outside\n") {
				t.Fatalf("the refusal leaked the outside file: %q", r.Content)
			}
		})
	}
	// Listing and grepping the root never follow the symlinks out.
	r := call(t, s, GrepFiles, map[string]any{"pattern": "outside"})
	if strings.Contains(r.Content, "secret") || !strings.Contains(r.Content, "No matches") {
		t.Fatalf("grep followed a symlink out: %q", r.Content)
	}
	sameTree(t, before, snapshot(t, outer))
}

func TestAllowDeny(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"src/a.go": "x\n", "src/gen/b.go": "x\n", "docs/c.md": "x\n"})
	before := snapshot(t, dir)
	s := server(t, dir, map[string]config.Tool{
		ReadFile:   {Allow: []string{"src/**"}, Deny: []string{"src/gen"}},
		ListFiles:  {Deny: []string{"docs/"}},
		ModifyFile: {Allow: []string{"docs/*.md"}},
	})
	if r := call(t, s, ReadFile, map[string]any{"path": "src/a.go"}); r.IsError {
		t.Fatalf("allowed read refused: %s", r.Content)
	}
	for _, p := range []string{"src/gen/b.go", "docs/c.md"} {
		if r := call(t, s, ReadFile, map[string]any{"path": p}); !r.IsError || !strings.Contains(r.Content, "not allowed for fs_read_file") {
			t.Fatalf("read %s: %q", p, r.Content)
		}
	}
	r := call(t, s, ListFiles, map[string]any{})
	if strings.Contains(r.Content, "docs") || !strings.Contains(r.Content, "src/gen/b.go") {
		t.Fatalf("list = %q", r.Content)
	}
	if r := call(t, s, ModifyFile, map[string]any{"patterns": []map[string]any{{"old": "x", "new": "y", "paths": []string{"src/a.go"}}}}); !r.IsError {
		t.Fatalf("modify outside allow ran: %s", r.Content)
	}
	sameTree(t, before, snapshot(t, dir))
}

// TestHashCheck: a file changed since the model read it in this turn is
// not written, and a preview that no longer fits is not applied.
func TestHashCheck(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.txt": "one\ntwo\n"})
	s := server(t, dir, nil)
	if r := call(t, s, ReadFile, map[string]any{"path": "a.txt"}); r.IsError {
		t.Fatal(r.Content)
	}
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	args := map[string]any{"patterns": []map[string]any{{"old": "two", "new": "2", "paths": []string{"a.txt"}}}}
	r := call(t, s, ModifyFile, args)
	if !r.IsError || !strings.Contains(r.Content, "changed since you last read it") {
		t.Fatalf("stale write not refused: %q", r.Content)
	}
	if r := call(t, s, ReadFile, map[string]any{"path": "a.txt"}); r.IsError {
		t.Fatal(r.Content)
	}
	r = call(t, s, ModifyFile, args)
	if r.IsError || len(r.Changed) != 1 || r.Changed[0] != "a.txt" {
		t.Fatalf("fresh write: %+v", r)
	}
	// The tool's own write counts as read: a second change goes through.
	r = call(t, s, ModifyFile, map[string]any{"patterns": []map[string]any{{"old": "three", "new": "3", "paths": []string{"a.txt"}}}})
	if r.IsError {
		t.Fatalf("second write refused: %s", r.Content)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	if string(b) != "one\n2\n3\n" {
		t.Fatalf("a.txt = %q", b)
	}
}

func TestPreviewWritesNothing(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.txt": "one\n"})
	before := snapshot(t, dir)
	s := server(t, dir, nil)
	p, ok, err := s.Preview(context.Background(), ModifyFile, json.RawMessage(`{"patterns":[{"old":"one","new":"uno","paths":["a.txt"]}]}`))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+uno\n"
	if p.Diff != want || p.Summary != "modify a.txt (1 replacement)" || p.Error != "" {
		t.Fatalf("preview = %+v\nwant diff %q", p, want)
	}
	p, ok, _ = s.Preview(context.Background(), ModifyFile, json.RawMessage(`{"patterns":[{"old":"zzz","new":"uno","paths":["a.txt"]}]}`))
	if !ok || !strings.Contains(p.Error, "not found") {
		t.Fatalf("failing preview = %+v", p)
	}
	if _, ok, _ := s.Preview(context.Background(), ReadFile, json.RawMessage(`{"path":"a.txt"}`)); ok {
		t.Fatal("a read tool previewed")
	}
	sameTree(t, before, snapshot(t, dir))
}

func TestToolsOffered(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Conversation.Tools.Named[ReadFile] = config.Tool{Description: "mine"}
	cfg.Conversation.Tools.Named[GitLog] = config.Tool{}
	cfg.Conversation.Tools.Named["everything__echo"] = config.Tool{}
	cfg.Conversation.Tools.Named[Shell] = config.Tool{Command: []string{"my-shell"}} // a local tool of that name wins
	s := New(cfg, t.TempDir())
	defer s.Close()
	tools, _ := s.Tools(context.Background())
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		var v any
		if err := json.Unmarshal(tl.Parameters, &v); err != nil {
			t.Fatalf("%s schema: %v", tl.Name, err)
		}
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "fs_read_file,git_log" || tools[0].Description != "mine" {
		t.Fatalf("tools = %v", tools)
	}
	for _, n := range Names {
		var v any
		if err := json.Unmarshal([]byte(specs[n].schema), &v); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", n, err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func benchConfig() config.Config {
	cfg := config.Default()
	cfg.Conversation.Tools.Named[GrepFiles] = config.Tool{}
	return cfg
}

// TestGitToolsRunNoRepositoryCommand: a checkout whose .git/config names
// commands (an fsmonitor hook, a filter driver for its committed
// .gitattributes, an external diff, a textconv, a pager) gets none of
// them run by the read-only git tools.
func TestGitToolsRunNoRepositoryCommand(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t, map[string]string{"a.txt": "one\n"})
	marks := t.TempDir()
	script := filepath.Join(marks, "run.sh")
	must(t, os.WriteFile(script, []byte("#!/bin/sh\necho ran >> \""+marks+"/marker\"\ncat\n"), 0o755))
	for _, kv := range [][2]string{
		{"core.fsmonitor", script},
		{"core.pager", script},
		{"pager.status", script},
		{"diff.external", script},
		{"filter.evil.clean", script},
		{"filter.evil.smudge", script},
		{"filter.evil.process", script},
		{"filter.evil.required", "true"},
		{"diff.evil.textconv", script},
		{"diff.evil.command", script},
	} {
		cmd := exec.Command("git", "config", kv[0], kv[1])
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git config %s: %v\n%s", kv[0], err, out)
		}
	}
	must(t, os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("* filter=evil diff=evil\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644))
	s := server(t, dir, nil)
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{GitStatus, map[string]any{}, " M a.txt"},
		{GitDiff, map[string]any{}, "+two"},
		{GitDiff, map[string]any{"paths": []string{"a.txt"}}, "-one"},
		{GitLog, map[string]any{}, "first commit"},
	} {
		r := call(t, s, tc.tool, tc.args)
		if r.IsError || !strings.Contains(r.Content, tc.want) {
			t.Errorf("%s %v: IsError = %v, want %q in:\n%s", tc.tool, tc.args, r.IsError, tc.want, r.Content)
		}
	}
	if b, err := os.ReadFile(filepath.Join(marks, "marker")); err == nil {
		t.Fatalf("a command from the repository's git configuration ran (%d times)", strings.Count(string(b), "ran"))
	}
}

// internalName folds case and Unicode normalisation: the NFC and NFD
// spellings of a name are one name, and only .git and .jp are internal.
func TestInternalName(t *testing.T) {
	t.Parallel()
	for seg, want := range map[string]bool{
		".git": true, ".GIT": true, ".Git": true, ".jp": true, ".JP": true, ".jP": true,
		".git\u200d": true, "\ufeff.jp": true, ".jp ": true, "git~1": true,
		"git": false, ".github": false, ".gitignore": false, "jp": false, ".jpx": false, "caf\u00e9": false,
	} {
		if got := internalName(seg); got != want {
			t.Errorf("internalName(%q) = %v, want %v", seg, got, want)
		}
	}
	// The NFC and NFD spellings of a name are one name (macOS stores
	// NFD); other names differ.
	if !sameName("Cafe\u0301", "caf\u00e9") || !sameName("caf\u00e9", "CAFE\u0301") {
		t.Error("the NFD and NFC spellings of a name compare different")
	}
	if sameName("cafe", "caf\u00e9") {
		t.Error("cafe and café compare equal")
	}
}

// TestWriteSweepsStaleTemps: a write tool names its temporary files
// ".NAME.jp-tmp-…", and a write to a directory removes from it the ones
// a killed jp left (older than a minute), and nothing else: not a fresh
// one (a write in flight), not another program's, not one in another
// directory. The listing tools never show them.
func TestWriteSweepsStaleTemps(t *testing.T) {
	t.Parallel()
	old := time.Now().Add(-2 * time.Minute)
	files := map[string]string{
		"src/.a.go.jp-tmp-0123456789ab":     "stale",
		"src/.b.go.jp-tmp-ba9876543210":     "fresh",
		"src/.a.go.tmp-0123456789ab":        "another writer's",
		"src/.notes.jp-tmp-mine":            "the user's",
		"src/sub/.c.go.jp-tmp-aaaaaaaaaaaa": "stale, another directory",
		"other/.d.go.jp-tmp-bbbbbbbbbbbb":   "stale, another directory",
		"src/a.go":                          "package a\n",
	}
	dir := tree(t, files)
	for p := range files {
		if p != "src/.b.go.jp-tmp-ba9876543210" {
			must(t, os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old))
		}
	}
	s := server(t, dir, nil)
	if r := call(t, s, ListFiles, map[string]any{}); strings.Contains(r.Content, "jp-tmp-0") || !strings.Contains(r.Content, ".notes.jp-tmp-mine") {
		t.Errorf("fs_list_files shows jp's temporary files:\n%s", r.Content)
	}
	if r := call(t, s, GrepFiles, map[string]any{"pattern": "stale"}); !strings.Contains(r.Content, "No matches") {
		t.Errorf("fs_grep_files searched jp's temporary files:\n%s", r.Content)
	}
	if r := call(t, s, CreateFile, map[string]any{"path": "src/new.go", "content": "package a\n"}); r.IsError {
		t.Fatal(r.Content)
	}
	for p := range files {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
		if gone := os.IsNotExist(err); gone != (p == "src/.a.go.jp-tmp-0123456789ab") {
			t.Errorf("%s: removed = %v", p, gone)
		}
	}
	es, err := os.ReadDir(filepath.Join(dir, "src"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.Contains(e.Name(), "new.go") && e.Name() != "new.go" {
			t.Errorf("the write left %s", e.Name())
		}
	}
}

// The temporary file of a write tool is named as jp's: a write that
// fails after staging (the rename fails) leaves nothing either way, so
// the name is checked where the stage happens.
func TestStageNamesTempAsJPs(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.txt": "x\n"})
	s := server(t, dir, nil)
	if err := s.open(); err != nil {
		t.Fatal(err)
	}
	tmp, err := s.stage("a.txt", []byte("y\n"), false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tmp, ".a.txt.jp-tmp-") || !atomicfile.IsTemp(tmp, tempMarker) {
		t.Errorf("temporary file %q is not named .a.txt.jp-tmp-<hex>", tmp)
	}
}
