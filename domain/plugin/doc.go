// Package plugin is the wire format of jp's command plugin protocol
// (docs/plugins.md, the prompt channel included): every message as a Go type
// with its exact JSON shape, the protocol version, the plugin manifest, the
// prompt kinds and outcomes, command routing and the admission rules.
//
// Messages are JSON lines. Every message carries a "type" discriminator;
// requests may carry an "id" that the answer echoes. A message type here
// implements Message; Encode writes the discriminator, DecodeHeader reads it
// back together with the id. The package does no I/O: the host side lives
// in app/ and adapters/pluginproc, the plugin side in adapters/pluginsdk.
// docs/plugins.md is the protocol reference for plugin authors.
package plugin

// ProtocolVersion is the protocol this jp speaks. Version 1 is the base
// protocol: every request, the prompt channel and delegated turns
// included. Version 2 adds only what a plugin serving several workspaces
// needs: workspace_scope "multi", per-request workspace addressing and
// list_workspaces. A plugin whose manifest (or ready message) needs a
// higher version is refused.
const ProtocolVersion = 2

// MaxLine is the longest line either side accepts: a longer line is a
// protocol error that ends the plugin.
const MaxLine = 16 << 20
