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

// ToolKind is what a tool does, for conversation.tools.auto (jp q
// --auto): which tools a mode runs without asking.
type ToolKind int

// Tool kinds.
const (
	// ToolKindOther: anything else (an MCP tool): never run by a mode.
	ToolKindOther ToolKind = iota
	// ToolKindRead: reads the checkout, changes nothing (auto = read).
	ToolKindRead
	// ToolKindEdit: changes files inside the checkout only (auto = edit).
	ToolKindEdit
	// ToolKindSandboxedCommand: runs a command in jp's sandbox (auto =
	// all).
	ToolKindSandboxedCommand
	// ToolKindCommand: runs a command outside any sandbox: never run by
	// a mode.
	ToolKindCommand
)

// ToolClassifier is the optional side of a ToolServer that says what
// kind each of its tools is. A server without it offers ToolKindOther
// tools only.
type ToolClassifier interface {
	ToolKind(name string) ToolKind
}
