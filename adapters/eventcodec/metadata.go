package eventcodec

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

// knownMetadataKeys are Metadata's keys.
var knownMetadataKeys = map[string]bool{
	"title": true, "created_at": true, "last_activated_at": true,
	"pinned_at": true, "archived_at": true, "events_count": true,
}

// MetadataJSON is a metadata document with encoding/json methods: its
// JSON form is metadata.json's (MarshalMetadata, UnmarshalMetadata).
type MetadataJSON conversation.Metadata

// MarshalJSON is MarshalMetadata.
func (m MetadataJSON) MarshalJSON() ([]byte, error) { return MarshalMetadata(conversation.Metadata(m)) }

// UnmarshalJSON is UnmarshalMetadata.
func (m *MetadataJSON) UnmarshalJSON(b []byte) error {
	return UnmarshalMetadata(b, (*conversation.Metadata)(m))
}

// MarshalMetadata writes the known keys in order, then the unknown ones kept
// in Extra, sorted. Timestamps are in m.Format; a zero created_at is never
// written (the store fills it from the conversation ID), and in the Rust
// form neither is an empty title (the Rust reader takes it for a title).
func MarshalMetadata(m conversation.Metadata) ([]byte, error) {
	ts := func(t time.Time) string { return FormatTime(t, m.Format) }
	fs := make([]field, 0, 6+len(m.Extra))
	if m.Title != "" || m.Format != conversation.FormatRust {
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
	extra := m.Extra
	if _, kept := m.Extra[conversation.ExpiresAtKey]; m.Expires != nil && !kept {
		// Set since the document was read: written in its form.
		keys = append(keys, conversation.ExpiresAtKey)
		b, _ := json.Marshal(FormatTime(*m.Expires, m.Format))
		extra = maps.Clone(m.Extra)
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra[conversation.ExpiresAtKey] = b
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := extra[k]
		if !json.Valid(v) {
			return nil, fmt.Errorf("metadata key %s: not JSON", k)
		}
		fs = append(fs, field{k, v})
	}
	return object(fs...)
}

// UnmarshalMetadata reads the known keys (timestamps in either form) and keeps
// the others in Extra.
func UnmarshalMetadata(b []byte, m *conversation.Metadata) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw == nil {
		return fmt.Errorf("metadata is null, want an object")
	}
	var out conversation.Metadata
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
			out.Format = conversation.FormatRust
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
	out.Expires = readExpiry(raw[conversation.ExpiresAtKey])
	*m = out
	return nil
}

// readExpiry reads a stored expires_at (kept in Extra as it was stored):
// nil when absent, null or not a timestamp (then it only survives).
func readExpiry(v json.RawMessage) *time.Time {
	var s string
	if json.Unmarshal(v, &s) != nil || s == "" {
		return nil
	}
	t, _, err := ParseTime(s)
	if err != nil {
		return nil
	}
	return &t
}

// Summary is a listing row in the JSON form jp's outputs give it (jp
// conversation ls and show --format json): conversation.Summary's fields,
// its metadata in metadata.json's form.
type Summary struct {
	ID       conversation.ID        `json:"id"`
	Metadata MetadataJSON           `json:"metadata"`
	Local    bool                   `json:"local"`
	Storage  conversation.Storage   `json:"storage"`
	LastRoot *conversation.LastRoot `json:"last_root,omitempty"`
}

// SummaryOf is s in its JSON form.
func SummaryOf(s conversation.Summary) Summary {
	return Summary{ID: s.ID, Metadata: MetadataJSON(s.Metadata), Local: s.Local, Storage: s.Storage, LastRoot: s.LastRoot}
}

// Summaries is SummaryOf of each row.
func Summaries(list []conversation.Summary) []Summary {
	out := make([]Summary, len(list))
	for i, s := range list {
		out[i] = SummaryOf(s)
	}
	return out
}

// Events is each event in its stored form, for encoding/json.
func Events(evs []conversation.Event) []JSON {
	out := make([]JSON, len(evs))
	for i, e := range evs {
		out[i] = JSON(e)
	}
	return out
}
