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
	// Extra holds the keys this version does not know (a newer jp's, the
	// Rust jp's), so that a rewrite keeps them: an older jp keeps what a
	// newer one recorded.
	Extra map[string]json.RawMessage `json:"-"`
	// Format is the form the document was read in (FormatRust when its
	// timestamps are the Rust jp's), and the form it is written in.
	Format Format `json:"-"`
	// HasEventsCount is false when the document had no events_count (the
	// Rust jp writes none): the store counts the events instead.
	HasEventsCount bool `json:"-"`
}

// knownMetadataKeys are Metadata's keys.
var knownMetadataKeys = map[string]bool{
	"title": true, "created_at": true, "last_activated_at": true,
	"pinned_at": true, "archived_at": true, "events_count": true,
}

// MarshalJSON writes the known keys in order, then the unknown ones kept
// in Extra, sorted. Timestamps are in m.Format; a zero created_at is never
// written (the store fills it from the conversation ID), and in the Rust
// form neither is an empty title (the Rust reader takes it for a title).
func (m Metadata) MarshalJSON() ([]byte, error) {
	ts := func(t time.Time) string { return FormatTime(t, m.Format) }
	fs := make([]field, 0, 6+len(m.Extra))
	if m.Title != "" || m.Format != FormatRust {
		fs = append(fs, field{"title", m.Title})
	}
	if !m.CreatedAt.IsZero() {
		fs = append(fs, field{"created_at", ts(m.CreatedAt)})
	}
	fs = append(fs, field{"last_activated_at", ts(m.LastActivatedAt)})
	for _, p := range []struct {
		k string
		t *time.Time
	}{{"pinned_at", m.PinnedAt}, {"archived_at", m.ArchivedAt}} {
		if p.t == nil {
			fs = append(fs, field{p.k, json.RawMessage("null")})
		} else {
			fs = append(fs, field{p.k, ts(*p.t)})
		}
	}
	fs = append(fs, field{"events_count", m.EventsCount})
	keys := make([]string, 0, len(m.Extra))
	for k := range m.Extra {
		if !knownMetadataKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m.Extra[k]
		if !json.Valid(v) {
			return nil, fmt.Errorf("metadata key %s: not JSON", k)
		}
		fs = append(fs, field{k, v})
	}
	return object(fs...)
}

// UnmarshalJSON reads the known keys (timestamps in either form) and keeps
// the others in Extra.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw == nil {
		return fmt.Errorf("metadata is null, want an object")
	}
	var out Metadata
	readTime := func(k string) (*time.Time, error) {
		v, ok := raw[k]
		delete(raw, k)
		if !ok || string(v) == "null" {
			return nil, nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		t, rust, err := ParseTime(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		if rust {
			out.Format = FormatRust
		}
		return &t, nil
	}
	if v, ok := raw["title"]; ok {
		if string(v) != "null" {
			if err := json.Unmarshal(v, &out.Title); err != nil {
				return fmt.Errorf("title: %w", err)
			}
		}
		delete(raw, "title")
	}
	var err error
	var t *time.Time
	if t, err = readTime("created_at"); err != nil {
		return err
	} else if t != nil {
		out.CreatedAt = *t
	}
	if t, err = readTime("last_activated_at"); err != nil {
		return err
	} else if t != nil {
		out.LastActivatedAt = *t
	}
	if out.PinnedAt, err = readTime("pinned_at"); err != nil {
		return err
	}
	if out.ArchivedAt, err = readTime("archived_at"); err != nil {
		return err
	}
	if v, ok := raw["events_count"]; ok {
		if err := json.Unmarshal(v, &out.EventsCount); err != nil {
			return fmt.Errorf("events_count: %w", err)
		}
		out.HasEventsCount = true
		delete(raw, "events_count")
	}
	if len(raw) > 0 {
		out.Extra = raw
	}
	*m = out
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

// MarshalJSON writes known keys and preserves unknown ones.
func (m LocalMetadata) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(m.Extra)+2)
	for k, v := range m.Extra {
		out[k] = v
	}
	if m.LastRoot != nil {
		lr := make(map[string]any, len(m.LastRootExtra)+2)
		for k, v := range m.LastRootExtra {
			lr[k] = v
		}
		lr["path"] = m.LastRoot.Path
		lr["last_used"] = m.LastRoot.LastUsed
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
			inner := map[string]json.RawMessage{}
			if err := json.Unmarshal(v, &inner); err != nil {
				return err
			}
			delete(inner, "path")
			delete(inner, "last_used")
			delete(inner, "live") // derived, never stored
			if len(inner) > 0 {
				m.LastRootExtra = inner
			}
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
