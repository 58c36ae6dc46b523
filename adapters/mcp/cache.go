package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// toolCache keeps each server instance's last tools/list answer on disk,
// so that a turn can offer a server's tools to the model without starting
// it: the server is started when the model calls one of its tools. One
// file per instance key (server name, resolved configuration and spawn
// directory), named by the key's hash, so that nothing of the
// configuration (env values may be secrets) is written. An entry is
// replaced whenever a started server lists tools that differ from it
// (or reports another name or version), and removed when the server says
// its tool list changed. A cache that cannot be read or written only
// costs a server start. See docs/mcp.md.
type toolCache struct {
	dir string // "" disables the cache
	log *slog.Logger
	// forgotten, when set (tests), runs after an entry was dropped.
	forgotten func(spec ports.MCPServerSpec)
}

// cacheFormat is bumped when the entry's shape changes; entries of
// another format are ignored (and rewritten on the next listing).
const cacheFormat = 1

// cacheEntry is one file of the cache.
type cacheEntry struct {
	Format        int        `json:"format"`
	Server        string     `json:"server"`
	ServerName    string     `json:"server_name,omitempty"`
	ServerVersion string     `json:"server_version,omitempty"`
	Tools         []llm.Tool `json:"tools"`
}

func (c *toolCache) path(spec ports.MCPServerSpec) string {
	h := sha256.Sum256([]byte(instanceKey(spec)))
	return filepath.Join(c.dir, hex.EncodeToString(h[:16])+".json")
}

// load returns the cached entry of spec.
func (c *toolCache) load(spec ports.MCPServerSpec) (cacheEntry, bool) {
	if c.dir == "" {
		return cacheEntry{}, false
	}
	b, err := os.ReadFile(c.path(spec))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Debug("MCP tool cache unreadable; the server will be started to list its tools", "server", spec.Name, "err", err)
		}
		return cacheEntry{}, false
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || e.Format != cacheFormat || e.Server != spec.Name || e.Tools == nil {
		return cacheEntry{}, false
	}
	return e, true
}

// store records e for spec unless the file already says the same.
func (c *toolCache) store(spec ports.MCPServerSpec, e cacheEntry) {
	if c.dir == "" {
		return
	}
	e.Format, e.Server = cacheFormat, spec.Name
	if e.Tools == nil {
		e.Tools = []llm.Tool{}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	p := c.path(spec)
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
		return
	}
	if err := writeFileAtomic(p, b); err != nil {
		c.log.Debug("MCP tool cache not written", "server", spec.Name, "err", err)
		return
	}
	c.log.Debug("MCP tool cache updated", "server", spec.Name, "tools", len(e.Tools))
}

// forget removes spec's entry: the next turn starts the server to list
// its tools again.
func (c *toolCache) forget(spec ports.MCPServerSpec) {
	if c.dir == "" {
		return
	}
	if err := os.Remove(c.path(spec)); err == nil {
		c.log.Debug("MCP tool cache dropped: the server's tool list changed", "server", spec.Name)
	}
	if c.forgotten != nil {
		c.forgotten(spec)
	}
}

// writeFileAtomic writes b to p (0600, in a 0700 directory) through a
// temporary file and a rename, so that a reader sees the old entry or the
// new one, never half of one. A cache needs no directory fsync: an entry
// lost to a crash is rebuilt by the next listing.
func writeFileAtomic(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return atomicfile.Replace(p, b, atomicfile.Options{Perm: 0o600, Secret: true})
}
