package conversation

import (
	"encoding/json"
	"slices"
)

// approvedToolsKey is the metadata.json key listing the tools the user
// answered "always for this conversation".
const approvedToolsKey = "approved_tools"

// ApprovedTools returns the tools that run without asking in this
// conversation (kept in metadata.json under approved_tools).
func (m Metadata) ApprovedTools() []string {
	raw, ok := m.Extra[approvedToolsKey]
	if !ok {
		return nil
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil
	}
	return names
}

// ApproveTool adds name to ApprovedTools.
func (m *Metadata) ApproveTool(name string) {
	names := m.ApprovedTools()
	if slices.Contains(names, name) {
		return
	}
	names = append(names, name)
	slices.Sort(names)
	b, _ := json.Marshal(names)
	if m.Extra == nil {
		m.Extra = map[string]json.RawMessage{}
	}
	m.Extra[approvedToolsKey] = b
}
