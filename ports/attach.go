package ports

import (
	"context"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
)

// AttachRequest names what to attach to a message.
type AttachRequest struct {
	// Specs are what -a was given (or conversation.attachments): a path
	// (file, directory, glob), "cmd:<command>", or an http(s) URL.
	Specs []string
	// Dir is the directory relative paths start from.
	Dir string
	// Root is the checkout: commands run there.
	Root string
	// MCP is the [mcp] configuration: an mcp://SERVER/URI spec reads a
	// resource of one of its servers.
	MCP config.MCP
}

// Attacher reads attachments. A spec it cannot attach (missing, binary,
// over a size limit, a failing command or URL) is an error whose message
// is one line naming the spec and, for a limit, the limit.
type Attacher interface {
	Attach(ctx context.Context, req AttachRequest) ([]conversation.Attachment, error)
}
