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
}

// Pinned reports whether the conversation is pinned.
func (m Metadata) Pinned() bool { return m.PinnedAt != nil }

// Archived reports whether the conversation is archived.
func (m Metadata) Archived() bool { return m.ArchivedAt != nil }

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
}

// LastRoot is the checkout a conversation's latest turn ran in (seed 003).
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
}

// MarshalJSON writes known keys and preserves unknown ones.
func (m LocalMetadata) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(m.Extra)+2)
	for k, v := range m.Extra {
		out[k] = v
	}
	if m.LastRoot != nil {
		lr := *m.LastRoot
		lr.Live = nil
		out["last_root"] = lr
	}
	if m.Local {
		out["local"] = true
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads known keys and keeps the rest in Extra.
func (m *LocalMetadata) UnmarshalJSON(b []byte) error {
	raw := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = LocalMetadata{}
	if v, ok := raw["last_root"]; ok {
		if string(v) != "null" {
			var lr LastRoot
			if err := json.Unmarshal(v, &lr); err != nil {
				return err
			}
			lr.Live = nil
			m.LastRoot = &lr
		}
		delete(raw, "last_root")
	}
	if v, ok := raw["local"]; ok {
		if err := json.Unmarshal(v, &m.Local); err != nil {
			return err
		}
		delete(raw, "local")
	}
	if len(raw) > 0 {
		m.Extra = raw
	}
	return nil
}
