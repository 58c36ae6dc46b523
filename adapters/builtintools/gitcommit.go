package builtintools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/jpcli/jp/internal/procgroup"
	"github.com/jpcli/jp/internal/safegit"
	"github.com/jpcli/jp/ports"
)

// Committer is conversation.tools.git_commit = "turn": it commits the
// files jp's tools changed in a turn, and nothing else, on the current
// branch. git runs through internal/safegit (no hook, filter, pager or
// credential program of the repository's choosing), with signing off and
// pathspecs taken literally; it never amends and never pushes.
type Committer struct{}

var _ ports.GitCommitter = Committer{}

// CommitFiles implements ports.GitCommitter.
func (Committer) CommitFiles(ctx context.Context, root string, files []string, message string) (string, error) {
	if len(files) == 0 {
		return "", nil
	}
	git := func(args ...string) (string, error) {
		argv, err := safegit.Argv(nil, append([]string{"--literal-pathspecs", "-c", "commit.gpgsign=false", "-c", "core.editor=true"}, args...)...)
		if err != nil {
			return "", err
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = root
		cmd.Env = append(safegit.Env(os.Environ()), "GIT_OPTIONAL_LOCKS=1")
		out := &procgroup.Capped{Max: 1 << 20}
		cmd.Stdout, cmd.Stderr = out, out
		err = procgroup.Run(ctx, cmd, killGrace)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(out.String()))
		}
		if err != nil {
			return out.String(), fmt.Errorf("git %s: %w", args[0], err)
		}
		return out.String(), nil
	}
	if _, err := git("symbolic-ref", "-q", "HEAD"); err != nil {
		if _, err2 := git("rev-parse", "--git-dir"); err2 != nil {
			return "", fmt.Errorf("%s is not in a git repository", root)
		}
		return "", errors.New("HEAD is not on a branch (detached): jp commits on the current branch only")
	}
	// A file that is neither in the working tree nor known to git (created
	// and deleted again) has nothing to commit.
	tracked, err := git(append([]string{"ls-files", "-z", "--"}, files...)...)
	if err != nil {
		return "", err
	}
	known := map[string]bool{}
	for _, f := range strings.Split(tracked, "\x00") {
		known[f] = true
	}
	var paths []string
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f))); err == nil || known[f] {
			paths = append(paths, f)
		}
	}
	if len(paths) == 0 {
		return "", nil
	}
	if _, err := git(append([]string{"add", "-A", "--"}, paths...)...); err != nil {
		return "", err
	}
	if out, _ := git(append([]string{"diff", "--cached", "--name-only", "--no-ext-diff", "--"}, paths...)...); strings.TrimSpace(out) == "" {
		return "", nil
	}
	if _, err := git(append([]string{"commit", "--no-verify", "-q", "-m", message, "--only", "--"}, paths...)...); err != nil {
		return "", err
	}
	out, err := git("rev-parse", "--short", "HEAD")
	return strings.TrimSpace(out), err
}
