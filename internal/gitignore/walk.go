package gitignore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Options says what a walk leaves out beyond git's rules.
type Options struct {
	// SkipDotfiles leaves out every file and directory below the start
	// whose name begins with "." (attachments: .env, .github, ...).
	SkipDotfiles bool
	// Exclude is the content of the repository's info/exclude file (see
	// ReadExclude), applied below every .gitignore.
	Exclude []byte
}

// ErrInsideGit is returned for a start directory that is .git or inside
// one: a walk never enters .git.
var ErrInsideGit = errors.New("inside .git, which jp never walks")

// WalkFunc is called for every file (anything not a directory, symlinks
// included, never followed) a walk keeps, with its slash-separated path
// from the root of the walked file system. err is non-nil, with d nil or
// the directory, when a directory below the start could not be read:
// returning nil skips it.
type WalkFunc func(rel string, d fs.DirEntry, err error) error

// frame is the patterns of one .gitignore (or info/exclude), which apply
// to the entries below dir.
type frame struct {
	dir  string // slash path from the root, "." for the root
	pats []pattern
}

// Walk calls fn, in lexical order, for every file below start (a
// slash-separated directory of fsys; "." for its root) that git would not
// ignore, treating fsys's root as the top of the checkout:
//
//   - .git (directory or file) is never entered or listed;
//   - .gitignore files apply to their directory and everything below it:
//     those of start's ancestors up to the root are read first, then
//     each directory's own as the walk enters it; a deeper file's matching
//     pattern wins over a shallower one's, and within a file the last
//     matching pattern wins ("!" re-includes);
//   - Options.Exclude applies below all of them;
//   - an ignored directory is not entered (as in git, a "!" pattern
//     cannot re-include a file inside it);
//   - start itself is always walked, even when ignored or a dotfile.
//
// Symbolic links are reported and never followed (start itself is
// resolved as fs.WalkDir does). Walk stops at the first error fn returns
// or when ctx ends.
func Walk(ctx context.Context, fsys fs.FS, start string, opt Options, fn WalkFunc) error {
	start = path.Clean(start)
	if insideGit(start) {
		return ErrInsideGit
	}
	var frames []frame
	if pats := parsePatterns(opt.Exclude); len(pats) > 0 {
		frames = append(frames, frame{dir: ".", pats: pats})
	}
	if start != "." {
		dir := "."
		for seg := range strings.SplitSeq(path.Dir(start), "/") {
			if seg == "." {
				break
			}
			frames = pushIgnore(fsys, frames, dir)
			dir = path.Join(dir, seg)
		}
		frames = pushIgnore(fsys, frames, dir)
	}
	return fs.WalkDir(fsys, start, func(rel string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if rel == start {
				return err
			}
			return fn(rel, d, err)
		}
		if rel != start {
			name := d.Name()
			if name == ".git" || (opt.SkipDotfiles && name[0] == '.') {
				return skip(d)
			}
			// Frames of directories the walk has left are dropped.
			parent := path.Dir(rel)
			for len(frames) > 0 && !within(frames[len(frames)-1].dir, parent) {
				frames = frames[:len(frames)-1]
			}
			if ignored(frames, rel, name, d.IsDir()) {
				return skip(d)
			}
		}
		if d.IsDir() {
			frames = pushIgnore(fsys, frames, rel)
			return nil
		}
		return fn(rel, d, nil)
	})
}

func skip(d fs.DirEntry) error {
	if d.IsDir() {
		return fs.SkipDir
	}
	return nil
}

// insideGit reports whether rel is .git or below one.
func insideGit(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		if seg == ".git" {
			return true
		}
	}
	return false
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// pushIgnore appends the frame of dir's .gitignore, if it has one. Like
// git, a .gitignore that is a symbolic link is not read.
func pushIgnore(fsys fs.FS, frames []frame, dir string) []frame {
	name := path.Join(dir, ".gitignore")
	if st, err := fs.Lstat(fsys, name); err != nil || !st.Mode().IsRegular() {
		return frames
	}
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return frames
	}
	if pats := parsePatterns(b); len(pats) > 0 {
		frames = append(frames, frame{dir: dir, pats: pats})
	}
	return frames
}

// ignored applies the frames (all of them directories holding rel) to
// rel: the deepest frame with a matching pattern decides, and in it the
// last matching pattern.
func ignored(frames []frame, rel, name string, isDir bool) bool {
	for i := len(frames) - 1; i >= 0; i-- {
		f := &frames[i]
		sub := rel
		if f.dir != "." {
			sub = rel[len(f.dir)+1:]
		}
		for j := len(f.pats) - 1; j >= 0; j-- {
			if p := &f.pats[j]; p.match(sub, name, isDir) {
				return !p.negate
			}
		}
	}
	return false
}

// ReadExclude returns the info/exclude file of the git checkout whose top
// directory is top, or nil. A linked worktree (.git a file naming its git
// directory) shares the main repository's file, as in git.
func ReadExclude(top string) []byte {
	gitDir := filepath.Join(top, ".git")
	st, err := os.Lstat(gitDir)
	switch {
	case err != nil:
		return nil
	case st.Mode().IsRegular():
		b, err := os.ReadFile(gitDir)
		if err != nil {
			return nil
		}
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return nil
		}
		gitDir = joinAbs(top, strings.TrimSpace(dir))
		if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			gitDir = joinAbs(gitDir, strings.TrimSpace(string(c)))
		}
	case !st.IsDir():
		return nil
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "info", "exclude"))
	if err != nil {
		return nil
	}
	return b
}

func joinAbs(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}
