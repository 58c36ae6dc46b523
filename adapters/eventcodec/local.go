package eventcodec

import (
	"encoding/json"

	"github.com/jpcli/jp/domain/conversation"
)

// LocalJSON is metadata.local.json's document with encoding/json methods:
// the known keys (last_root, local) and every key this version does not
// know, kept in Extra and written back unchanged.
type LocalJSON conversation.LocalMetadata

// MarshalJSON writes known keys and preserves unknown ones.
func (m LocalJSON) MarshalJSON() ([]byte, error) {
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
func (m *LocalJSON) UnmarshalJSON(b []byte) error {
	raw := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = LocalJSON{}
	if v, ok := raw["last_root"]; ok {
		if string(v) != "null" {
			var lr conversation.LastRoot
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
