package workspace

// Location addresses one checkout of a workspace for storage calls: the
// workspace ID (which finds the user-local silo) and the canonical checkout
// root (which finds the .jp/conversations projection). Root is empty when no
// checkout is involved; then only the silo is read or written.
type Location struct {
	ID   ID
	Root string
}
