package conversation

import (
	"sort"

	"github.com/jpcli/jp/domain/workspace"
)

// CheckAddress refuses a location or a conversation ID that could address
// a path outside jp's data directory (workspace.Location.Check, ParseID).
func CheckAddress(loc workspace.Location, id ID) error {
	if err := loc.Check(); err != nil {
		return err
	}
	_, err := ParseID(string(id))
	return err
}

// SortByID orders summaries by conversation ID, oldest first: IDs are
// creation times, so a shorter ID is older and equal lengths compare as
// text.
func SortByID(s []Summary) {
	sort.Slice(s, func(i, j int) bool {
		a, b := s[i].ID, s[j].ID
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
}
