package conversation

import (
	"sort"
	"strings"

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

// AttachKind is what an attachment spec (jp q -a, conversation.attachments,
// a plugin query's attachments) names.
type AttachKind int

// Attachment spec kinds.
const (
	AttachPath    AttachKind = iota // a file, a directory or a glob
	AttachCommand                   // cmd:COMMAND
	AttachMCP                       // mcp://SERVER/URI
	AttachURL                       // http:// or https://
)

// AttachKindOf classifies an attachment spec by its prefix.
func AttachKindOf(spec string) AttachKind {
	switch {
	case strings.HasPrefix(spec, "cmd:"):
		return AttachCommand
	case strings.HasPrefix(spec, "mcp://"):
		return AttachMCP
	case strings.HasPrefix(spec, "http://"), strings.HasPrefix(spec, "https://"):
		return AttachURL
	}
	return AttachPath
}
