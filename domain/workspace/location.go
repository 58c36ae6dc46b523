package workspace

import (
	"fmt"
	"path"
)

// Location addresses one checkout of a workspace for storage calls: the
// workspace ID (which finds the user-local silo) and the canonical checkout
// root (which finds the .jp/conversations projection). Root is empty when no
// checkout is involved; then only the silo is read or written.
type Location struct {
	ID   ID
	Root string
}

// Check refuses a location that could address a path outside jp's data
// directory or a relative checkout: an ID that is not a workspace ID, or a
// root that is not absolute. Every store checks it before touching files.
func (l Location) Check() error {
	if !LooksLikeID(string(l.ID)) {
		return fmt.Errorf("%w %q", ErrInvalidID, l.ID)
	}
	if l.Root != "" && !path.IsAbs(l.Root) {
		return fmt.Errorf("checkout root %q is not an absolute path", l.Root)
	}
	return nil
}
