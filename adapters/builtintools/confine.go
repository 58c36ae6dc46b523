package builtintools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/text/unicode/norm"
)

// toolError is a failure the model reads as the call's result: a refused
// path, a missing file, an ambiguous replacement.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func refuse(format string, args ...any) error {
	return &toolError{msg: fmt.Sprintf(format, args...)}
}

// resolve turns a path the model gave into a slash-separated path relative
// to the checkout root, refusing what leads out of it: "..", absolute
// paths outside the root. Symlinks leading out are refused by os.Root when
// the path is opened (see rootErr).
func (s *Server) resolve(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", refuse("a path is required")
	}
	if strings.ContainsRune(p, 0) {
		return "", refuse("path %q contains a NUL byte", p)
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(s.dir, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", refuse("refused: %s is outside the checkout %s; give a path relative to it", p, s.dir)
		}
		p = rel
	}
	rel := filepath.ToSlash(filepath.Clean(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", refuse("refused: %s leads outside the checkout %s; give a path inside it", p, s.dir)
	}
	return rel, nil
}

// readable resolves p for reading and applies allow/deny.
func (s *Server) readable(tool, p string) (string, error) {
	rel, err := s.resolve(p)
	if err != nil {
		return "", err
	}
	if !s.permitted(tool, rel) {
		return "", refuse("refused: %s is not allowed for %s by conversation.tools.%s.allow/deny", rel, tool, tool)
	}
	return rel, nil
}

// writable resolves p for writing: readable, and not inside .git/ or
// .jp/ (neither as written nor through a symlinked directory), and not a
// symlink itself.
func (s *Server) writable(tool, p string) (string, error) {
	rel, err := s.readable(tool, p)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", refuse("refused: %s needs a file path, not the checkout root", tool)
	}
	if internal(rel) {
		return "", refuse("refused: %s is inside .git/ or .jp/, which the built-in tools never write", rel)
	}
	// A directory symlink inside the checkout may point into .git/ or .jp/:
	// check where the deepest existing ancestor really is.
	real, err := s.realRel(rel)
	if err != nil {
		return "", err
	}
	if internal(real) {
		return "", refuse("refused: %s leads into .git/ or .jp/ (through a symlink), which the built-in tools never write", rel)
	}
	if fi, err := s.root.Lstat(rel); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return "", refuse("refused: %s is a symbolic link; write to the file it points to instead", rel)
	}
	return rel, nil
}

// realRel resolves the symlinks of rel's deepest existing ancestor and
// returns it relative to the root (refusing an ancestor outside it).
func (s *Server) realRel(rel string) (string, error) {
	dir, rest := rel, ""
	for {
		abs := filepath.Join(s.dir, filepath.FromSlash(dir))
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			r, err := filepath.Rel(s.dir, real)
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return "", refuse("refused: %s leads outside the checkout %s (through a symlink)", rel, s.dir)
			}
			return path.Join(filepath.ToSlash(r), rest), nil
		}
		if dir == "." || dir == "" {
			return rel, nil
		}
		rest = path.Join(path.Base(dir), rest)
		dir = path.Dir(dir)
	}
}

// internal reports whether rel is .git or .jp or inside one (at any
// depth: a submodule's .git too), under every spelling a file system may
// take for the same directory (see internalName).
func internal(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if internalName(seg) {
			return true
		}
	}
	return false
}

// internalName reports whether one path element names .git or .jp on
// some file system (see sameName), or is git~1, the 8.3 short name
// Windows may give .git (git refuses it too).
func internalName(seg string) bool {
	return sameName(seg, ".git") || sameName(seg, ".jp") || sameName(seg, "git~1")
}

// sameName reports whether two path elements may name one file: compared
// case-insensitively (macOS and Windows fold case: .GIT is .git), after
// Unicode normalisation (NFC and NFD spellings are one name on macOS),
// without the format characters HFS+ ignores (".g\u200cit") and the
// trailing dots and spaces Windows drops (".git. ").
func sameName(a, b string) bool {
	return strings.EqualFold(fold(a), fold(b))
}

func fold(seg string) string {
	s := strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, norm.NFC.String(seg))
	return strings.TrimRight(s, ". ")
}

// permitted applies conversation.tools.<tool>.allow and deny to rel.
func (s *Server) permitted(tool, rel string) bool {
	tc := s.cfg[tool]
	if len(tc.Allow) > 0 {
		ok := false
		for _, g := range tc.Allow {
			if globMatch(g, rel) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for _, g := range tc.Deny {
		if globMatch(g, rel) {
			return false
		}
	}
	return true
}

// globMatch matches a glob against rel; a glob naming a directory (dir,
// dir/ or dir/**) matches everything under it.
func globMatch(g, rel string) bool {
	g = strings.TrimPrefix(strings.TrimSuffix(g, "/"), "./")
	if ok, _ := doublestar.Match(g, rel); ok {
		return true
	}
	if ok, _ := doublestar.Match(g+"/**", rel); ok {
		return true
	}
	return false
}

// rootErr turns an error of an os.Root operation into a tool error the
// model can read.
func rootErr(op, rel string, err error) error {
	var te *toolError
	switch {
	case errors.As(err, &te):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return refuse("%s: %s does not exist", op, rel)
	case isEscape(err):
		return refuse("refused: %s leads outside the checkout (through a symlink)", rel)
	case errors.Is(err, fs.ErrPermission):
		return refuse("%s: permission denied for %s", op, rel)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return refuse("%s %s: %v", op, rel, pe.Err)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return refuse("%s %s: %v", op, rel, le.Err)
	}
	return refuse("%s %s: %v", op, rel, err)
}

// isEscape recognises os.Root's refusal of a path that leaves the root.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// validGlob reports whether g is a glob doublestar accepts.
func validGlob(g string) bool { return doublestar.ValidatePattern(g) }
