// Package conformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, installed here by .ci/install-deps
// with the Node.js 22 it needs) against jp as a client: client.sh maps
// each scenario to the jp command a user would run (jp mcp check, jp mcp
// call), and conformance_test.go checks every scenario that is not a
// draft or an extension passes with a non-zero check count, or is listed
// in expected-failures.txt with the reason. docs/mcp.md shows the
// results.
package conformance
