package ports

import (
	"context"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
)

// AttachRequest names what to attach to a message.
type AttachRequest struct {
	// Specs are what -a was given (or conversation.attachments): a path
	// (file, directory, glob), "cmd:<command>", an http(s) URL,
	// mcp://SERVER/URI, file:PATH, jp://jp-cID or gh://OWNER/REPO/pull/N/...
	Specs []string
	// Dir is the directory relative paths start from.
	Dir string
	// Root is the checkout: commands run there.
	Root string
	// MCP is the [mcp] configuration: an mcp://SERVER/URI spec reads a
	// resource of one of its servers.
	MCP config.MCP
	// Confine keeps paths inside Root, as for conversation.attachments and
	// a plugin's query: a path must be relative without "..", and neither
	// it nor any match of a glob may resolve outside Root through a
	// symbolic link. Anything else is refused with an error naming the
	// spec. Without Confine a path the user typed may lie outside Root.
	Confine bool
	// Conversation reads the events of another conversation of the
	// workspace for a jp:// attachment (read only); nil refuses them. An
	// unknown ID is an error wrapping ErrNotFound.
	Conversation func(ctx context.Context, id conversation.ID) ([]conversation.Event, error)
	// Note, when set, gets one line for each file a glob or a directory
	// walk leaves out because it is a symbolic link that resolves outside
	// Root.
	Note func(line string)
}

// Attacher reads attachments. A spec it cannot attach (missing, binary,
// over a size limit, a failing command or URL, a confined path leading
// out of Root) is an error whose message is one line naming the spec and,
// for a limit, the limit. An attachment whose content does not come from
// a file inside Root (a file outside it or reached through a link leading
// out, a command's output, a URL's body, an MCP resource) is marked
// Local: the store keeps that content out of the checkout copy.
type Attacher interface {
	Attach(ctx context.Context, req AttachRequest) ([]conversation.Attachment, error)
}
