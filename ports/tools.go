package ports

import (
	"context"
	"encoding/json"

	"github.com/jpcli/jp/domain/llm"
)

// ToolResult is what a tool call produced. A failed tool is a result with
// IsError set, not an error: the turn goes on and the model sees it.
type ToolResult struct {
	Content string
	IsError bool
	// Changed lists the files (relative to the checkout) the call wrote,
	// moved or deleted; the turn records them in the conversation.
	Changed []string
}

// ToolServer offers tools and runs them. Local command tools and MCP
// servers each implement it; the engine merges them. Call may be invoked
// concurrently for the calls of one batch.
type ToolServer interface {
	// Tools lists the tools this server offers.
	Tools(ctx context.Context) ([]llm.Tool, error)
	// Call runs a tool by name. It returns an error only when the server
	// itself failed; ctx cancellation must stop the tool promptly.
	Call(ctx context.Context, name string, args json.RawMessage) (ToolResult, error)
}

// ToolPreview is what a write tool's call will do, planned without
// writing, for the permission prompt.
type ToolPreview struct {
	// Summary is one line: "modify a.go (2 replacements)".
	Summary string
	// Diff is the unified diff the call will apply.
	Diff string
	// Files are the files it will change, relative to the checkout.
	Files []string
	// Error is set when the call would fail (a missing search text, a
	// refused path): the prompt shows it instead of a diff.
	Error string
}

// ToolPreviewer is the optional side of a ToolServer whose tools write
// files: Preview plans a call without writing. ok is false for a tool
// that has nothing to preview.
type ToolPreviewer interface {
	Preview(ctx context.Context, name string, args json.RawMessage) (p ToolPreview, ok bool, err error)
}
