package ports

import (
	"context"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

// EventHeaderScanner is a ConversationStore that can read a conversation
// without decoding its events' big values, for a copy of the stored
// bytes (jp conversation fork). A store that has it is asked for it; one
// that has not is read with ScanEvents.
type EventHeaderScanner interface {
	// ScanEventHeaders is ScanEvents giving events without the values a
	// copy never looks at (a chat's content, message and reasoning, a tool
	// call's arguments and result, an inquiry's answer, a schema: their
	// fields are empty), all the others decoded, and Raw the event as
	// stored. CreateFrom of the same store writes such an event from Raw,
	// byte for byte.
	ScanEventHeaders(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error) error
}
