package workspace

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Scope is a command plugin's declared workspace_scope (docs/plugins.md).
type Scope int

// Plugin scopes. ScopeUnknown is never valid; the wire default is single.
const (
	ScopeUnknown Scope = iota
	ScopeSingle
	ScopeMulti
)

// String returns the wire name.
func (s Scope) String() string {
	switch s {
	case ScopeSingle:
		return "single"
	case ScopeMulti:
		return "multi"
	}
	return "unknown"
}

// ParseScope reads a workspace_scope value; "" is the default, single.
func ParseScope(s string) (Scope, error) {
	switch s {
	case "", "single":
		return ScopeSingle, nil
	case "multi":
		return ScopeMulti, nil
	}
	return ScopeUnknown, fmt.Errorf("unknown workspace_scope %q: expected \"single\" or \"multi\"", s)
}

// Ref names one checkout of a workspace on a multi-scope plugin request.
type Ref struct {
	ID   string `json:"id"`
	Root string `json:"root,omitempty"`
}

// ErrBadRef is wrapped by every WorkspaceRef validation error.
var ErrBadRef = errors.New("invalid workspace reference")

// ValidateRef checks the shape of a reference: a well-formed ID and, when
// given, an absolute clean root path.
func ValidateRef(r Ref) (ID, error) {
	id, err := ParseID(r.ID)
	if err != nil || r.ID != strings.TrimSpace(r.ID) {
		return "", fmt.Errorf("%w: workspace.id %q is not a workspace ID", ErrBadRef, r.ID)
	}
	if r.Root != "" {
		if !path.IsAbs(r.Root) {
			return "", fmt.Errorf("%w: workspace.root %q is not an absolute path", ErrBadRef, r.Root)
		}
		if path.Clean(r.Root) != r.Root {
			return "", fmt.Errorf("%w: workspace.root %q is not a clean path (no '..', '.', or trailing '/')", ErrBadRef, r.Root)
		}
	}
	return id, nil
}
