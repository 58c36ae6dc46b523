package workspace

import (
	"crypto/sha256"
	"math/big"
)

// The default workspace holds what jp query stores when it is run outside
// any workspace (docs/storage.md, "Outside a workspace"). It has no
// checkout: its conversations live only in its silo,
// <data>/workspace/default-<DefaultID>.
const DefaultSlug = "default"

// DefaultID is the default workspace's ID: the first IDLen base-36 digits
// of the SHA-256 of "jp default workspace". It is the same on every
// machine and in every version of jp, so the silo is always found again.
var DefaultID = defaultID()

func defaultID() ID {
	sum := sha256.Sum256([]byte("jp default workspace"))
	s := new(big.Int).SetBytes(sum[:]).Text(36)
	return ID(s[:IDLen])
}

// Default returns the location of the default workspace.
func Default() Location { return Location{ID: DefaultID} }

// IsDefault reports whether loc is the default workspace.
func (l Location) IsDefault() bool { return l.ID == DefaultID && l.Root == "" }
