package ports

import (
	"context"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

// TransientEventScanner is a ConversationStore that can also give a
// conversation's events whose strings and byte slices are valid only
// until fn returns: the memory they were read into is reused for the
// next events. A caller that keeps nothing of an event, or copies what
// it keeps (turn.Transcript.AddCopy), then reads a long conversation
// without its whole history passing through newly allocated memory. A
// store that does not implement it is read with ScanEvents.
type TransientEventScanner interface {
	ScanEventsTransient(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error) error
}
