package conversation

import (
	"encoding/json"
	"slices"
)

// approvedToolsKey lists the tools the user answered "always for this
// conversation". It lives in metadata.local.json, which never leaves the
// user's machine: an approval is the user's, and a conversation shipped
// in a repository must not carry one in. Older versions kept it in
// metadata.json; that key is read only from the user-local copy, and is
// dropped from every copy written to a checkout or imported from one.
const approvedToolsKey = "approved_tools"

// ApprovedTools returns the tools that run without asking in this
// conversation.
func (m LocalMetadata) ApprovedTools() []string { return approvedIn(m.Extra) }

// ApproveTool adds name to ApprovedTools.
func (m *LocalMetadata) ApproveTool(name string) { approveIn(&m.Extra, name) }

// LegacyApprovedTools returns the approvals an older version kept in
// metadata.json. Only the user-local copy's are to be honoured.
func (m Metadata) LegacyApprovedTools() []string { return approvedIn(m.Extra) }

// DropApprovals removes approvals from metadata.json: they never belong
// in a copy another user can read or write. It reports whether there
// were any.
func (m *Metadata) DropApprovals() bool {
	_, had := m.Extra[approvedToolsKey]
	delete(m.Extra, approvedToolsKey)
	return had
}

func approvedIn(extra map[string]json.RawMessage) []string {
	raw, ok := extra[approvedToolsKey]
	if !ok {
		return nil
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil
	}
	return names
}

func approveIn(extra *map[string]json.RawMessage, name string) {
	names := approvedIn(*extra)
	if slices.Contains(names, name) {
		return
	}
	names = append(names, name)
	slices.Sort(names)
	b, _ := json.Marshal(names) // a []string always marshals
	if *extra == nil {
		*extra = map[string]json.RawMessage{}
	}
	(*extra)[approvedToolsKey] = b
}
