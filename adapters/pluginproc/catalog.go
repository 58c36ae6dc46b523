package pluginproc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// Catalog is the ports.PluginCatalog on the file system:
// <data>/plugins/command/ holds installed plugins, and
// <data>/plugins/approvals/<sha256>.json the approvals.
type Catalog struct {
	dataDir string
	// exeDir is the directory of jp's own executable, where the
	// checksum list of the plugins jp installed sits ("" = look it up).
	exeDir string
	// now is the clock the digest cache reads (nil: time.Now).
	now func() time.Time
}

var _ ports.PluginCatalog = (*Catalog)(nil)

// NewCatalog returns the catalog of the jp data directory dataDir.
func NewCatalog(dataDir string) *Catalog { return &Catalog{dataDir: dataDir} }

// WithExeDir returns the catalog reading the checksum list of the plugins
// jp installed (plugin.ShippedList) from dir instead of the directory of
// the running executable.
func (c *Catalog) WithExeDir(dir string) *Catalog {
	cp := *c
	cp.exeDir = dir
	return &cp
}

// InstallDir is <data>/plugins/command.
func (c *Catalog) InstallDir() string { return filepath.Join(c.dataDir, "plugins", "command") }

func (c *Catalog) approvalsDir() string { return filepath.Join(c.dataDir, "plugins", "approvals") }

// Discover lists jp-* executables in the install directory, then in each
// absolute directory of searchPath. A file reached twice (the same
// directory twice, or two symlinks to one file) is listed once.
func (c *Catalog) Discover(ctx context.Context, searchPath []string) ([]plugin.Binary, error) {
	dirs := append([]string{c.InstallDir()}, searchPath...)
	seenDir := map[string]bool{}
	seenFile := map[string]bool{}
	var out []plugin.Binary
	for i, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if dir == "" || !filepath.IsAbs(dir) || seenDir[filepath.Clean(dir)] {
			continue // relative $PATH entries are never searched
		}
		seenDir[filepath.Clean(dir)] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // a missing or unreadable directory holds no plugins
		}
		src := plugin.SourcePath
		if i == 0 {
			src = plugin.SourceInstalled
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasPrefix(name, plugin.BinaryPrefix) || strings.HasSuffix(name, plugin.ManifestSuffix) || name == plugin.ShippedList {
				continue
			}
			p := filepath.Join(dir, name)
			real, ok := executable(p)
			if !ok || seenFile[real] {
				continue
			}
			seenFile[real] = true
			b := plugin.Binary{Path: p, RealPath: real, Source: src}
			readManifest(&b, p, real)
			out = append(out, b)
		}
	}
	return out, nil
}

// executable reports whether p is (a symlink to) an executable regular
// file, and returns the resolved path.
func executable(p string) (string, bool) {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return "", false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	return real, true
}

// readManifest reads <binary>.manifest.json beside p, or beside the file
// p links to.
func readManifest(b *plugin.Binary, p, real string) {
	for _, mp := range []string{p + plugin.ManifestSuffix, real + plugin.ManifestSuffix} {
		data, err := os.ReadFile(mp)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			b.ManifestError = err.Error()
			return
		}
		m, err := plugin.ParseManifest(data)
		if err != nil {
			b.ManifestError = err.Error()
			return
		}
		b.Manifest, b.ManifestFrom = &m, "file"
		return
	}
}

// Digest returns the hex SHA-256 of the file at path. A plugin binary is
// hashed on every run, and a large one takes tens of milliseconds, so
// digests are cached in <data>/plugins/digests.json under the file's
// identity (digestKey: device, inode, size, mtime, ctime): any write to
// the file changes its key, and it is hashed again.
func (c *Catalog) Digest(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("checksum plugin %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("checksum plugin %s: %w", path, err)
	}
	key, ctime, cacheable := digestKey(fi)
	// A file changed in the last moments may change again within the
	// file system's timestamp granularity and keep its key ("racily
	// clean", as git calls it): only an older one is cached.
	cacheable = cacheable && ctime.Before(c.clock().Add(-racyWindow))
	cache := c.readDigests()
	if d, ok := cache[key]; cacheable && ok && validDigest(d) {
		return d, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("checksum plugin %s: %w", path, err)
	}
	d := hex.EncodeToString(h.Sum(nil))
	if after, err := f.Stat(); cacheable && err == nil {
		if k2, _, _ := digestKey(after); k2 == key {
			c.saveDigest(cache, key, d)
		}
	}
	return d, nil
}

// racyWindow is how long after its last change a file's digest is not
// cached.
const racyWindow = 2 * time.Second

func (c *Catalog) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

// maxCachedDigests bounds digests.json: past it, the cache starts over.
const maxCachedDigests = 512

func (c *Catalog) digestsPath() string { return filepath.Join(c.dataDir, "plugins", "digests.json") }

// readDigests reads the digest cache; a missing or unreadable one is
// empty (every digest is then computed).
func (c *Catalog) readDigests() map[string]string {
	m := map[string]string{}
	data, err := os.ReadFile(c.digestsPath())
	if err != nil || json.Unmarshal(data, &m) != nil {
		return map[string]string{}
	}
	return m
}

// saveDigest records a digest in the cache, atomically. A failure only
// costs the next run a hash.
func (c *Catalog) saveDigest(cache map[string]string, key, digest string) {
	if len(cache) >= maxCachedDigests {
		cache = map[string]string{}
	}
	cache[key] = digest
	data, err := json.Marshal(cache)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(c.digestsPath()), 0o700); err != nil {
		return
	}
	_ = atomicfile.Write(c.digestsPath(), append(data, '\n'), atomicfile.Options{Perm: 0o600})
}

// validDigest guards the approval file name.
func validDigest(d string) bool {
	if len(d) != sha256.Size*2 {
		return false
	}
	_, err := hex.DecodeString(d)
	return err == nil && strings.ToLower(d) == d
}

// Approval reads <data>/plugins/approvals/<digest>.json.
func (c *Catalog) Approval(ctx context.Context, digest string) (plugin.Approval, error) {
	if !validDigest(digest) {
		return plugin.Approval{}, fmt.Errorf("approval: %q is not a sha256 digest", digest)
	}
	p := filepath.Join(c.approvalsDir(), digest+".json")
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return plugin.Approval{}, &ports.NotFoundError{What: "approval of " + digest}
	}
	if err != nil {
		return plugin.Approval{}, fmt.Errorf("read approval %s: %w", p, err)
	}
	var a plugin.Approval
	if err := json.Unmarshal(data, &a); err != nil || a.SHA256 != digest {
		return plugin.Approval{}, &ports.CorruptError{Path: p, Err: fmt.Errorf("not an approval of %s", digest)}
	}
	return a, nil
}

// SaveApproval writes the approval atomically (temp file, fsync, rename,
// directory fsync).
func (c *Catalog) SaveApproval(ctx context.Context, a plugin.Approval) error {
	if !validDigest(a.SHA256) {
		return fmt.Errorf("save approval: %q is not a sha256 digest", a.SHA256)
	}
	dir := c.approvalsDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save approval: %w", err)
	}
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, a.SHA256+".json"), append(data, '\n'), atomicfile.Options{Perm: 0o600}); err != nil {
		return fmt.Errorf("save approval: %w", err)
	}
	return nil
}

// Approvals returns the approvals recorded for name. An unreadable or
// foreign file in the approvals directory is skipped: it approves
// nothing.
func (c *Catalog) Approvals(ctx context.Context, name string) ([]plugin.Approval, error) {
	entries, err := os.ReadDir(c.approvalsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read plugin approvals: %w", err)
	}
	var out []plugin.Approval
	for _, e := range entries {
		digest, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !validDigest(digest) {
			continue
		}
		a, err := c.Approval(ctx, digest)
		if err != nil || a.Name != name {
			continue
		}
		if a.RealPath == "" {
			// a record of an older version: bind it to what its path is now.
			if real, err := filepath.EvalSymlinks(a.Path); err == nil {
				a.RealPath = real
			} else {
				a.RealPath = a.Path
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// Shipped reports whether the binary at path is one jp installed: it is
// in the directory of jp's own executable (both resolved), and that
// directory's plugin.ShippedList gives its file name this digest.
func (c *Catalog) Shipped(ctx context.Context, path, digest string) (bool, error) {
	dir := c.exeDir
	if dir == "" {
		exe, err := os.Executable()
		if err != nil {
			return false, nil // no executable to sit beside: nothing is jp's own
		}
		dir = filepath.Dir(exe)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || filepath.Dir(real) != realDir {
		return false, nil
	}
	list := filepath.Join(realDir, plugin.ShippedList)
	data, err := os.ReadFile(list)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", list, err)
	}
	sums, err := parseShippedList(data)
	if err != nil {
		return false, fmt.Errorf("%s: %w; reinstall jp (make install) to rewrite it", list, err)
	}
	return sums[filepath.Base(real)] == strings.ToLower(digest), nil
}
