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
	AttachPath         AttachKind = iota // a file, a directory or a glob
	AttachCommand                        // cmd:COMMAND
	AttachMCP                            // mcp://SERVER/URI
	AttachURL                            // http:// or https://
	AttachFile                           // file:PATH (relative to the checkout)
	AttachConversation                   // jp://jp-cID, or the shorthand jp-cID
	AttachGitHub                         // gh://OWNER/REPO/..., gh:pull/...
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
	case strings.HasPrefix(spec, "file:"):
		return AttachFile
	case strings.HasPrefix(spec, "jp://"), isConversationShorthand(spec):
		return AttachConversation
	case strings.HasPrefix(spec, "gh:"):
		return AttachGitHub
	}
	return AttachPath
}

// isConversationShorthand reports whether spec is the Rust jp's shorthand
// for a jp:// attachment: jp-c followed by digits, then nothing or a
// "?" and a selector (./jp-c1 names a path of that name).
func isConversationShorthand(spec string) bool {
	rest, ok := strings.CutPrefix(spec, "jp-c")
	if !ok {
		return false
	}
	id, _, _ := strings.Cut(rest, "?")
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return false
		}
	}
	return true
}
