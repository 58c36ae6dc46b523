// Package workspace holds the workspace model of jp: workspace IDs,
// checkouts and their root keys, the liveness rule, checkout selection for
// -w/--workspace, plugin scope, WorkspaceRef and the last-root check.
//
// It does no I/O: callers observe the file system and pass what they saw.
// See docs/storage.md for the disk layout.
package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// ID is a workspace ID: 7 characters of [0-9a-z], stored in .jp/.id.
type ID string

// IDLen is the length of a workspace ID.
const IDLen = 7

const idAlphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

// ErrInvalidID is wrapped by ParseID errors.
var ErrInvalidID = errors.New("invalid workspace ID")

// ParseID validates s (surrounding white space, as in a file, is trimmed).
func ParseID(s string) (ID, error) {
	s = strings.TrimSpace(s)
	if len(s) != IDLen {
		return "", fmt.Errorf("%w %q: expected %d characters of [0-9a-z]", ErrInvalidID, s, IDLen)
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(idAlphabet, rune(s[i])) {
			return "", fmt.Errorf("%w %q: expected %d characters of [0-9a-z]", ErrInvalidID, s, IDLen)
		}
	}
	return ID(s), nil
}

// LooksLikeID reports whether s has the shape of a workspace ID.
func LooksLikeID(s string) bool {
	_, err := ParseID(s)
	return err == nil && s == strings.TrimSpace(s)
}

// NewID draws a fresh ID from the random source r.
func NewID(r io.Reader) (ID, error) {
	var b [IDLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("generate workspace ID: %w", err)
	}
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return ID(b[:]), nil
}

// String returns the ID as stored.
func (id ID) String() string { return string(id) }

// RootKey is the file name of a checkout's roots registry entry: a hex
// SHA-256 prefix of the canonical (absolute, symlink-resolved) path.
func RootKey(canonicalPath string) string {
	sum := sha256.Sum256([]byte(canonicalPath))
	return hex.EncodeToString(sum[:])[:16]
}

// Checkout is one recorded directory holding .jp/.id for a workspace.
type Checkout struct {
	Path     string    `json:"path"`
	LastUsed time.Time `json:"last_used"`
}

// Observation is what a caller saw on disk for a checkout's .jp/.id.
type Observation struct {
	// Exists is true when <path>/.jp/.id could be read.
	Exists bool
	// Content is the file's content when it exists.
	Content string
}

// IsLive applies the liveness rule: a recorded checkout is live when
// <path>/.jp/.id exists and holds the recorded ID.
func IsLive(id ID, seen Observation) bool {
	if !seen.Exists {
		return false
	}
	got, err := ParseID(seen.Content)
	return err == nil && got == id
}

// CheckoutStatus is a checkout with its derived liveness.
type CheckoutStatus struct {
	Checkout
	Live bool `json:"live"`
}

// Known is a workspace known to this machine: a silo in the data directory
// and the checkouts recorded for it.
type Known struct {
	ID        ID               `json:"id"`
	Slug      string           `json:"slug"`
	Silo      string           `json:"silo"`
	Checkouts []CheckoutStatus `json:"checkouts"`
}

// LiveCheckouts returns the live checkouts, most recently used first.
func (k Known) LiveCheckouts() []CheckoutStatus {
	var out []CheckoutStatus
	for _, c := range k.Checkouts {
		if c.Live {
			out = append(out, c)
		}
	}
	SortCheckouts(out)
	return out
}

// SortCheckouts orders checkouts most recently used first, then by path.
func SortCheckouts(cs []CheckoutStatus) {
	sort.SliceStable(cs, func(i, j int) bool {
		if !cs[i].LastUsed.Equal(cs[j].LastUsed) {
			return cs[i].LastUsed.After(cs[j].LastUsed)
		}
		return cs[i].Path < cs[j].Path
	})
}

// Selection errors for SelectCheckout.
var (
	ErrNoLiveCheckout    = errors.New("no live checkout")
	ErrAmbiguousCheckout = errors.New("several live checkouts")
)

// AmbiguousError lists the live checkouts when an ID names several.
type AmbiguousError struct {
	ID    ID
	Paths []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("workspace %s has %d live checkouts (%s): pass one of them as -w PATH",
		e.ID, len(e.Paths), strings.Join(e.Paths, ", "))
}

// Unwrap lets callers test with errors.Is(err, ErrAmbiguousCheckout).
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguousCheckout }

// SelectCheckout picks the checkout an ID addresses (SPEC section 8): the
// only live one; an AmbiguousError when several are live; ErrNoLiveCheckout
// when none is.
func SelectCheckout(k Known) (CheckoutStatus, error) {
	live := k.LiveCheckouts()
	switch len(live) {
	case 0:
		recorded := make([]string, 0, len(k.Checkouts))
		for _, c := range k.Checkouts {
			recorded = append(recorded, c.Path)
		}
		if len(recorded) == 0 {
			return CheckoutStatus{}, fmt.Errorf("%w: workspace %s has no recorded checkout; run jp inside one of its directories", ErrNoLiveCheckout, k.ID)
		}
		return CheckoutStatus{}, fmt.Errorf("%w: workspace %s has no live checkout (recorded: %s no longer hold it); run jp inside a checkout of it",
			ErrNoLiveCheckout, k.ID, strings.Join(recorded, ", "))
	case 1:
		return live[0], nil
	}
	paths := make([]string, len(live))
	for i, c := range live {
		paths[i] = c.Path
	}
	sort.Strings(paths)
	return CheckoutStatus{}, &AmbiguousError{ID: k.ID, Paths: paths}
}

// Slug derives a silo slug from a checkout directory's base name: lower
// case, [0-9a-z-_.] kept, everything else replaced with '-'.
func Slug(base string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	s := strings.Trim(b.String(), "-.")
	if s == "" {
		s = "workspace"
	}
	if len(s) > 40 {
		s = s[:40]
	}
	return s
}

// SiloName is the directory name of a workspace's user-local silo.
func SiloName(slug string, id ID) string { return slug + "-" + string(id) }

// SiloID extracts the workspace ID from a silo directory name, which ends
// in "-<id>". ok is false for names that are not silos.
func SiloID(name string) (ID, string, bool) {
	if len(name) < IDLen+2 || name[len(name)-IDLen-1] != '-' {
		return "", "", false
	}
	id, err := ParseID(name[len(name)-IDLen:])
	if err != nil {
		return "", "", false
	}
	return id, name[:len(name)-IDLen-1], true
}
