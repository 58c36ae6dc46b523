package conversation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// labelsKey is the metadata.json key holding a conversation's labels (an
// array of strings). It is kept in Metadata.Extra, so a jp that does not
// know labels keeps them on rewrite.
const labelsKey = "labels"

// Labels returns the conversation's labels, sorted; none when the key is
// absent or not an array of strings.
func (m Metadata) Labels() []string {
	raw, ok := m.Extra[labelsKey]
	if !ok {
		return nil
	}
	var ls []string
	if err := json.Unmarshal(raw, &ls); err != nil {
		return nil
	}
	slices.Sort(ls)
	return slices.Compact(ls)
}

// HasLabel reports whether the conversation has label name.
func (m Metadata) HasLabel(name string) bool {
	return slices.Contains(m.Labels(), name)
}

// SetLabels replaces the labels (sorted, duplicates dropped); none removes
// the key.
func (m *Metadata) SetLabels(ls []string) {
	ls = slices.Clone(ls)
	slices.Sort(ls)
	ls = slices.Compact(ls)
	if len(ls) == 0 {
		delete(m.Extra, labelsKey)
		return
	}
	b, _ := json.Marshal(ls) // a []string always marshals
	if m.Extra == nil {
		m.Extra = map[string]json.RawMessage{}
	}
	m.Extra[labelsKey] = b
}

// CheckLabel validates a label name: 1 to 64 characters, letters, digits,
// '-', '_', '.', '/' and ':'.
func CheckLabel(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("label %q: a label is 1 to 64 characters", name)
	}
	if i := strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:", r))
	}); i >= 0 {
		return fmt.Errorf("label %q: use letters, digits and - _ . / : only", name)
	}
	return nil
}
