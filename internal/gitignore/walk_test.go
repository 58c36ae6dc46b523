package gitignore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jpcli/jp/internal/gitignore/gitignoretest"
)

func walkList(t *testing.T, dir, start string, opt Options) []string {
	t.Helper()
	if opt.Exclude == nil {
		opt.Exclude = ReadExclude(dir)
	}
	var got []string
	err := Walk(context.Background(), os.DirFS(dir), start, opt, func(rel string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWalk(t *testing.T) {
	t.Parallel()
	for _, c := range gitignoretest.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			start := c.Start
			if start == "" {
				start = "."
			}
			dir := gitignoretest.MakeTree(t, c.Files, false)
			if got := walkList(t, dir, start, Options{SkipDotfiles: c.SkipDotfiles}); !slices.Equal(got, c.Want) {
				t.Errorf("Walk listed\n  %q\nwant\n  %q", got, c.Want)
			}
		})
	}
}

// TestWalkAgreesWithGit runs the same trees through git itself: what
// `git ls-files --others --exclude-standard` lists is what Walk lists
// (except in the cases marked as jp's deliberate differences).
func TestWalkAgreesWithGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; .ci/install-deps installs it")
		}
		t.Skip("git is not installed")
	}
	for _, c := range gitignoretest.Cases {
		if c.NotGit {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			dir := gitignoretest.MakeTree(t, c.Files, true)
			args := []string{"-C", dir, "-c", "core.excludesFile=/dev/null", "ls-files", "--others", "--exclude-standard", "-z"}
			if c.Start != "" {
				args = append(args, "--", c.Start)
			}
			cmd := exec.Command("git", args...)
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("git ls-files: %v", err)
			}
			git := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			if len(out) == 0 {
				git = nil
			}
			slices.Sort(git)
			if !slices.Equal(git, c.Want) {
				t.Errorf("git lists\n  %q\nthe table says\n  %q", git, c.Want)
			}
		})
	}
}

func TestWalkRefusesInsideGit(t *testing.T) {
	t.Parallel()
	dir := gitignoretest.MakeTree(t, map[string]string{".git/config": "", "d/.git/hooks/x": ""}, false)
	for _, start := range []string{".git", "d/.git/hooks"} {
		err := Walk(context.Background(), os.DirFS(dir), start, Options{}, func(string, fs.DirEntry, error) error {
			t.Errorf("listed a file of %s", start)
			return nil
		})
		if !errors.Is(err, ErrInsideGit) {
			t.Errorf("Walk(%s) = %v, want ErrInsideGit", start, err)
		}
	}
}

func TestWalkStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	dir := gitignoretest.MakeTree(t, map[string]string{"a": "", "b": ""}, false)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := Walk(ctx, os.DirFS(dir), ".", Options{}, func(string, fs.DirEntry, error) error {
		n++
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Fatalf("err = %v after %d files, want context.Canceled after 1", err, n)
	}
}

func TestReadExcludeOfALinkedWorktree(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; .ci/install-deps installs it")
		}
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	run("init", "-q", main)
	run("-C", main, "commit", "-q", "--allow-empty", "-m", "x")
	run("-C", main, "worktree", "add", "-q", wt)
	if err := os.WriteFile(filepath.Join(main, ".git", "info", "exclude"), []byte("*.tmp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.tmp", "b"} {
		if err := os.WriteFile(filepath.Join(wt, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := walkList(t, wt, ".", Options{}); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("the worktree lists %q, want [b] (the main repository's info/exclude applies)", got)
	}
}

func TestTrimTrailingSpaces(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"a  ": "a", `a\ `: `a\ `, `a\  `: `a\ `, "   ": "", `a\`: `a\`, `a\\ `: `a\\`} {
		if got := trimTrailingSpaces(in); got != want {
			t.Errorf("trimTrailingSpaces(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDocExample: the walker lists docs/ignored-files.md's example as the
// page says, with dotfiles (the tools) and without (attachments).
func TestDocExample(t *testing.T) {
	t.Parallel()
	files, list, atts := gitignoretest.DocExample(t, "../../docs/ignored-files.md")
	dir := gitignoretest.MakeTree(t, files, false)
	if got := walkList(t, dir, ".", Options{}); !slices.Equal(got, list) {
		t.Errorf("listed %q, the page says %q", got, list)
	}
	if got := walkList(t, dir, ".", Options{SkipDotfiles: true}); !slices.Equal(got, atts) {
		t.Errorf("listed %q without dotfiles, the page says %q", got, atts)
	}
}

// FuzzParsePattern: any .gitignore line parses, translates to a regular
// expression RE2 accepts, and matches without panicking.
func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{"*.log", "!keep", "/a/**/b/", "[!a-z]x", `\#x\ `, "[[:alpha:]-]", "a[", `x\`, "[]]", "[\xff-\x01]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		p, ok := parsePattern(line)
		if !ok {
			return
		}
		if expr, ok := translate(strings.TrimPrefix(line, "!")); ok {
			if _, err := regexp.Compile(expr); err != nil {
				t.Fatalf("%q translates to %q, which RE2 refuses: %v", line, expr, err)
			}
		}
		p.match("a/b", "b", true)
		p.match(line, line, false)
	})
}
