package conversation

import "encoding/json"

// titlePendingKey marks, in metadata.local.json, a conversation whose
// generated title was still being asked for when its run ended: the run
// never waits for a title, so the next run of jp query asks again. It is
// the user's machine's business alone, like approvals.
const titlePendingKey = "title_pending"

// TitlePending reports whether the next run is to ask for the title.
func (m LocalMetadata) TitlePending() bool {
	var on bool
	return json.Unmarshal(m.Extra[titlePendingKey], &on) == nil && on
}

// SetTitlePending sets or clears the mark; it reports whether it changed.
func (m *LocalMetadata) SetTitlePending(on bool) bool {
	if on == m.TitlePending() {
		return false
	}
	if !on {
		delete(m.Extra, titlePendingKey)
		return true
	}
	if m.Extra == nil {
		m.Extra = map[string]json.RawMessage{}
	}
	m.Extra[titlePendingKey] = json.RawMessage("true")
	return true
}
