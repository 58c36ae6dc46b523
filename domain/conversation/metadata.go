package conversation

import (
	"encoding/json"
	"fmt"
	"sort"
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
	// Extra holds the keys this version does not know (a newer jp's), so
	// that a rewrite keeps them: an older jp keeps what a newer one
	// recorded.
	Extra map[string]json.RawMessage `json:"-"`
}

// metadataFields is Metadata's known keys, in their order, for the
// encoder (Extra is json:"-").
type metadataFields Metadata

// knownMetadataKeys are the keys of metadataFields.
var knownMetadataKeys = map[string]bool{
	"title": true, "created_at": true, "last_activated_at": true,
	"pinned_at": true, "archived_at": true, "events_count": true,
}

// MarshalJSON writes the known keys in order, then the unknown ones kept
// in Extra, sorted.
func (m Metadata) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(metadataFields(m))
	if err != nil || len(m.Extra) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(m.Extra))
	for k := range m.Extra {
		if !knownMetadataKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := b[:len(b)-1] // without the closing brace
	for _, k := range keys {
		name, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		v := m.Extra[k]
		if !json.Valid(v) {
			return nil, fmt.Errorf("metadata key %s: not JSON", k)
		}
		out = append(out, ',')
		out = append(out, name...)
		out = append(out, ':')
		out = append(out, v...)
	}
	return append(out, '}'), nil
}

// UnmarshalJSON reads the known keys and keeps the others in Extra.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	var f metadataFields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for k := range raw {
		if knownMetadataKeys[k] {
			delete(raw, k)
		}
	}
	f.Extra = nil
	if len(raw) > 0 {
		f.Extra = raw
	}
	*m = Metadata(f)
	return nil
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
