package builtintools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jpcli/jp/internal/gitignore/gitignoretest"
)

// listed is what one fs_list_files call lists.
func listed(t *testing.T, s *Server, args map[string]any) []string {
	t.Helper()
	r := call(t, s, ListFiles, args)
	if r.IsError {
		t.Fatalf("fs_list_files %v: %s", args, r.Content)
	}
	if r.Content == "No files match.\n" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(r.Content, "\n"), "\n")
}

// TestListFilesFollowsTheSharedRules runs the walker's table through
// fs_list_files: every tree lists what internal/gitignore's table says
// (the tools keep dotfiles, so the SkipDotfiles cases are the
// attachments' and are left to them).
func TestListFilesFollowsTheSharedRules(t *testing.T) {
	t.Parallel()
	for _, c := range gitignoretest.Cases {
		if c.SkipDotfiles {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			dir := gitignoretest.MakeTree(t, c.Files, false)
			args := map[string]any{}
			if c.Start != "" {
				args["path"] = c.Start
			}
			if got := listed(t, server(t, dir, nil), args); !slices.Equal(got, c.Want) {
				t.Errorf("fs_list_files listed\n  %q\nwant\n  %q", got, c.Want)
			}
		})
	}
}

// TestListFilesDocExample: fs_list_files lists docs/ignored-files.md's
// example as the page says.
func TestListFilesDocExample(t *testing.T) {
	t.Parallel()
	files, want, _ := gitignoretest.DocExample(t, "../../docs/ignored-files.md")
	dir := gitignoretest.MakeTree(t, files, false)
	if got := listed(t, server(t, dir, nil), map[string]any{}); !slices.Equal(got, want) {
		t.Errorf("fs_list_files listed %q, the page says %q", got, want)
	}
}

// TestGrepFollowsTheSharedRules: fs_grep_files searches exactly the
// regular files fs_list_files lists.
func TestGrepFollowsTheSharedRules(t *testing.T) {
	t.Parallel()
	files, want, _ := gitignoretest.DocExample(t, "../../docs/ignored-files.md")
	dir := gitignoretest.MakeTree(t, files, false)
	r := call(t, server(t, dir, nil), GrepFiles, map[string]any{"pattern": "^", "max_matches": 2000})
	var got []string
	for line := range strings.SplitSeq(strings.TrimSpace(r.Content), "\n") {
		p, _, _ := strings.Cut(line, ":")
		if len(got) == 0 || got[len(got)-1] != p {
			got = append(got, p)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("fs_grep_files searched %q, fs_list_files lists %q", got, want)
	}
}

// TestListFilesStartRules: a path below the root still obeys
// the root's .gitignore, and .git is refused as a path to list.
func TestListFilesStartRules(t *testing.T) {
	t.Parallel()
	dir := gitignoretest.MakeTree(t, map[string]string{".gitignore": "*.log\n", "src/a.go": "", "src/b.log": "", ".git/config": ""}, false)
	s := server(t, dir, nil)
	if got := listed(t, s, map[string]any{"path": "src"}); !slices.Equal(got, []string{"src/a.go"}) {
		t.Errorf("fs_list_files src listed %q, want [src/a.go] (the root's *.log applies)", got)
	}
	r := call(t, s, ListFiles, map[string]any{"path": ".git"})
	if !r.IsError || !strings.Contains(r.Content, ".git is inside .git/, which fs_list_files never lists") {
		t.Errorf("fs_list_files .git = %+v, want a refusal", r)
	}
}

// TestListFilesNeverFollowsLinks: a link is listed as a file, its target
// never walked, and fs_grep_files searches neither it nor its target.
func TestListFilesNeverFollowsLinks(t *testing.T) {
	t.Parallel()
	outer := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outer, "secret.txt"), []byte("needle outside\n"), 0o644))
	dir := gitignoretest.MakeTree(t, map[string]string{"a.txt": "needle inside\n", "sub/b.txt": "", "in-dir": "-> sub"}, false)
	must(t, os.Symlink(outer, filepath.Join(dir, "out-dir")))
	s := server(t, dir, nil)
	if got, want := listed(t, s, map[string]any{}), []string{"a.txt", "in-dir", "out-dir", "sub/b.txt"}; !slices.Equal(got, want) {
		t.Errorf("fs_list_files listed %q, want %q", got, want)
	}
	r := call(t, s, GrepFiles, map[string]any{"pattern": "needle"})
	if r.Content != "a.txt:1:needle inside\n" {
		t.Errorf("fs_grep_files = %q, want only a.txt's line", r.Content)
	}
}
