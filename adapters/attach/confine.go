package attach

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jpcli/jp/internal/safetext"
)

// Confinement to the checkout. A path the user typed may name a file
// outside the checkout (its content is then marked Local: kept in the
// user-local copy of the conversation only). What the user did not name
// one by one, the matches of a glob and the entries of a directory, never
// leads out of the checkout through a symbolic link: such a match is left
// out with a note. Configured attachments and a plugin's query (Confine)
// stay inside the checkout altogether, as a plugin's paths do: relative,
// no "..", and no symbolic link out, for each match of a glob too.

// checkout is the checkout attachments are read for.
type checkout struct {
	root string // as given; "" when there is none
	real string // root with its symbolic links resolved
}

func newCheckout(root string) checkout {
	c := checkout{root: root}
	if root != "" {
		c.real = resolve(root)
	}
	return c
}

// resolve is p made absolute with its symbolic links resolved; p itself,
// cleaned, when that fails (a missing file is reported by the read).
func resolve(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		if abs, err := filepath.Abs(real); err == nil {
			return abs
		}
		return real
	}
	return filepath.Clean(p)
}

// contains reports whether the resolved path real lies in the checkout.
// Without a checkout there is nothing to keep apart: everything does.
func (c checkout) contains(real string) bool {
	if c.root == "" {
		return true
	}
	return under(c.real, real) || under(filepath.Clean(c.root), real)
}

// under reports whether p is base or below it.
func under(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// confinedSpec refuses a path spec that is absolute or leads out with "..".
func confinedSpec(spec string) error {
	if !filepath.IsLocal(filepath.FromSlash(spec)) {
		return fmt.Errorf("%s: refused: an absolute path or one leading out with ..; give a path inside the checkout, relative to it", safetext.String(spec))
	}
	return nil
}

// linkedOut is the refusal of a confined path that resolves outside the
// checkout.
func linkedOut(shown string) error {
	return fmt.Errorf("%s: refused: it resolves outside the checkout through a symbolic link", safetext.String(shown))
}

// skipNote is the note for a match or entry left out.
func skipNote(shown string) string {
	return fmt.Sprintf("left out %s: a symbolic link that resolves outside the checkout (attach it by its own path to include it)", safetext.String(shown))
}
