// Package mcp is jp's MCP client: the ports.MCPPool of server instances
// and the ports.ToolServer a lease hands a turn, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) over stdio.
//
// A server runs as a child process in its own process group, in the
// turn's checkout root, with that root offered as its only MCP root. Its
// stderr goes to the log at debug level. Stopping it closes its stdin,
// waits StopGrace, sends SIGTERM to the group, waits again, then SIGKILL.
//
// Tools are offered to the model as <server>__<tool> (ToolName). Server
// elicitations become questions on the ports.Prompter with Topic
// "mcp:<server>" (elicit.go documents the mapping). Users' documentation
// is docs/mcp.md.
package mcp
