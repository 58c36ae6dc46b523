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
