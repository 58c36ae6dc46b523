package conversation

import (
	"encoding/json"
	"time"
)

// Metadata is the small per-conversation document (metadata.json) read for
// every listing. It never holds event content.
type Metadata struct {
	Title           string     `json:"title"`
	CreatedAt       time.Time  `json:"created_at"`
	LastActivatedAt time.Time  `json:"last_activated_at"`
	PinnedAt        *time.Time `json:"pinned_at"`
	ArchivedAt      *time.Time `json:"archived_at"`
	EventsCount     int        `json:"events_count"`
	// Extra holds the keys this version does not know (a newer jp's, the
	// Rust jp's), so that a rewrite keeps them: an older jp keeps what a
	// newer one recorded.
	Extra map[string]json.RawMessage `json:"-"`
	// Format is the form the document was read in (FormatRust when its
	// timestamps are the Rust jp's), and the form it is written in.
	Format Format `json:"-"`
	// Expires is when the conversation expires (jp q --tmp; the Rust jp's
	// "expires_at"), nil when it does not. An expiry read from a file stays
	// in Extra as it was stored until SetExpiresAt changes it.
	Expires *time.Time `json:"-"`
	// HasEventsCount is false when the document had no events_count (the
	// Rust jp writes none): the store counts the events instead.
	HasEventsCount bool `json:"-"`
}

// Pinned reports whether the conversation is pinned.
func (m Metadata) Pinned() bool { return m.PinnedAt != nil }

// Archived reports whether the conversation is archived.
func (m Metadata) Archived() bool { return m.ArchivedAt != nil }

// ExpiresAtKey is the metadata.json key of a conversation's expiry, the
// Rust jp's (kept in Extra as it was stored; see Expires).
const ExpiresAtKey = "expires_at"

// Storage says where a conversation was found.
type Storage int

// Where a listed conversation lives.
const (
	StorageUnknown Storage = iota
	// StorageUserLocal: in the user-local silo only (a --local conversation,
	// or one not projected into this checkout).
	StorageUserLocal
	// StorageBoth: in the silo and in this checkout's projection.
	StorageBoth
	// StorageWorkspaceOnly: only in this checkout's projection (committed by
	// someone else, not imported yet).
	StorageWorkspaceOnly
)

// String names the storage presence for listings.
func (s Storage) String() string {
	switch s {
	case StorageUserLocal:
		return "user-local"
	case StorageBoth:
		return "both"
	case StorageWorkspaceOnly:
		return "workspace-only"
	}
	return "unknown"
}

// MarshalText implements encoding.TextMarshaler.
func (s Storage) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Summary is one row of a conversation listing.
type Summary struct {
	ID       ID        `json:"id"`
	Metadata Metadata  `json:"metadata"`
	Local    bool      `json:"local"`
	Storage  Storage   `json:"storage"`
	LastRoot *LastRoot `json:"last_root,omitempty"`
	// Unreadable, when set, is why this conversation's checkout copy of
	// metadata.json could not be read (a merge left conflict markers in
	// it, say): only ID and Storage are known. A listing shows the others
	// and flags this one in one line.
	Unreadable error `json:"-"`
}

// LastRoot is the checkout a conversation's latest turn ran in (docs/plugins.md).
// Live is derived at read time and never stored.
type LastRoot struct {
	Path     string    `json:"path"`
	LastUsed time.Time `json:"last_used"`
	Live     *bool     `json:"live,omitempty"`
}

// SameRecord compares two records by path and last_used, ignoring the
// derived live flag, as the expected_last_root precondition requires.
func (r LastRoot) SameRecord(o LastRoot) bool {
	return r.Path == o.Path && r.LastUsed.Equal(o.LastUsed)
}

// LocalMetadata is metadata.local.json: machine-local facts. Keys this
// version does not know are kept in Extra and written back unchanged.
type LocalMetadata struct {
	LastRoot *LastRoot
	Local    bool
	Extra    map[string]json.RawMessage
	// LastRootExtra are the keys of the stored last_root object this
	// version does not know; they are written back into last_root, also
	// when a turn replaces its path and last_used.
	LastRootExtra map[string]json.RawMessage
}
