package config

import (
	"strings"
)

// UnsupportedKey is a key of the Rust jp's configuration that this jp
// reads and ignores (instead of refusing to start), with where it came
// from and its value, for the warning and for jp config show.
type UnsupportedKey struct {
	Key    string // full dotted key, e.g. "conversation.tools.fs_read.style"
	Source string // the layer: a file path or "--cfg flag ..."
	Value  any    // the value as read
}

// toleratedKeys are the keys of the Rust jp that this jp does not
// implement: a key the schema does not know is ignored with a warning when
// one of these patterns is a prefix of it ("*" stands for any one key),
// and is an error otherwise. Implementing a key in the schema is enough to
// stop it being warned about: only keys the schema does not know are
// looked up here, so the list only ever shrinks by deleting lines.
var toleratedKeys = []string{
	"inherit",
	"style",
	"editor.cmd",
	"editor.envs",
	"assistant.name",
	"assistant.tool_choice",
	"assistant.instructions",
	"assistant.model.parameters",
	"assistant.request.base_backoff_ms",
	"assistant.request.max_backoff_secs",
	"assistant.request.cache",
	"conversation.default_id",
	"conversation.title.generate",
	"conversation.inquiry",
	"conversation.attachments",
	"conversation.mcp_servers",
	"conversation.tools.defaults.result",
	"conversation.tools.defaults.style",
	"conversation.tools.*.source",
	"conversation.tools.*.style",
	"conversation.tools.*.result",
	"conversation.tools.*.questions",
	"conversation.tools.*.summary",
	"conversation.tools.*.examples",
	"conversation.tools.*.options",
	"conversation.tools.*.format",
	"conversation.tools.*.command.shell",
	"providers.llm",
	"providers.mcp",
	"mcp.servers.*.tools",
	"mcp.servers.*.binary_checksum",
}

// Tolerated reports whether the key path segs, unknown to the schema, is a
// key of the Rust jp that is read with a warning instead of rejected.
func Tolerated(segs []string) bool {
	for _, p := range toleratedKeys {
		if matchPrefix(strings.Split(p, "."), segs) {
			return true
		}
	}
	return false
}

func matchPrefix(pattern, segs []string) bool {
	if len(pattern) > len(segs) {
		return false
	}
	for i, p := range pattern {
		if p != "*" && p != segs[i] {
			return false
		}
	}
	return true
}

// TolerableTable reports whether every key under the table v at segs is
// tolerated, so that a whole unknown table of Rust keys (an [editor] table
// this jp does not have) is ignored with one warning.
func TolerableTable(segs []string, v any) bool {
	if Tolerated(segs) {
		return true
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return false
	}
	for k, sub := range m {
		if !TolerableTable(append(segs[:len(segs):len(segs)], k), sub) {
			return false
		}
	}
	return true
}
