package pluginproc

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/ports"
)

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

const manifestOK = `{"name":"titles","version":"1.0","description":"Titles","command":["titles"],"protocol_version":1}`

func TestDiscover(t *testing.T) {
	data, bin1, bin2 := t.TempDir(), t.TempDir(), t.TempDir()
	c := NewCatalog(data)
	write(t, filepath.Join(c.InstallDir(), "jp-titles"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(c.InstallDir(), "jp-titles.manifest.json"), manifestOK, 0o644)
	write(t, filepath.Join(bin1, "jp-broken"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(bin1, "jp-broken.manifest.json"), `{"name":"broken"}`, 0o644)
	write(t, filepath.Join(bin1, "jp-notexec"), "x", 0o644)
	write(t, filepath.Join(bin1, "other"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(bin2, "jp-serve-web"), "#!/bin/sh\n", 0o755)
	if err := os.Mkdir(filepath.Join(bin2, "jp-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The same file reached through a symlink is listed once.
	if err := os.Symlink(filepath.Join(bin2, "jp-serve-web"), filepath.Join(bin1, "jp-serve-web")); err != nil {
		t.Fatal(err)
	}
	bins, err := c.Discover(t.Context(), []string{bin1, "relative/dir", "", bin2, bin1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bins {
		got = append(got, filepath.Base(b.Path)+":"+b.Source.String())
	}
	if strings.Join(got, " ") != "jp-titles:installed jp-broken:path jp-serve-web:path" {
		t.Fatalf("discovered %v", got)
	}
	if bins[0].Manifest == nil || bins[0].ManifestFrom != "file" || bins[0].Name() != "titles" {
		t.Fatalf("installed plugin manifest: %+v", bins[0])
	}
	if !strings.Contains(bins[1].ManifestError, "invalid plugin manifest") || bins[1].Manifest != nil {
		t.Fatalf("broken manifest: %+v", bins[1])
	}
	if bins[2].Manifest != nil || strings.Join(bins[2].Command(), " ") != "serve web" {
		t.Fatalf("manifest-less plugin: %+v", bins[2])
	}
}

func TestManifestBesideSymlinkTarget(t *testing.T) {
	data, pkg, bin := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(pkg, "jp-titles"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(pkg, "jp-titles.manifest.json"), manifestOK, 0o644)
	if err := os.Symlink(filepath.Join(pkg, "jp-titles"), filepath.Join(bin, "jp-titles")); err != nil {
		t.Fatal(err)
	}
	bins, err := NewCatalog(data).Discover(t.Context(), []string{bin})
	if err != nil || len(bins) != 1 || bins[0].Manifest == nil {
		t.Fatalf("Discover = %+v, %v", bins, err)
	}
}

func TestDigestAndApprovals(t *testing.T) {
	data := t.TempDir()
	c := NewCatalog(data)
	p := filepath.Join(t.TempDir(), "jp-x")
	write(t, p, "binary", 0o755)
	sum := sha256.Sum256([]byte("binary"))
	want := hex.EncodeToString(sum[:])
	d, err := c.Digest(t.Context(), p)
	if err != nil || d != want {
		t.Fatalf("Digest = %s, %v", d, err)
	}
	if _, err := c.Approval(t.Context(), d); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("Approval before approving = %v", err)
	}
	a := plugin.Approval{SHA256: d, Path: p, Name: "x", ApprovedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Manifest: &plugin.Manifest{Name: "x", Version: "1", ProtocolVersion: 1}}
	if err := c.SaveApproval(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	got, err := c.Approval(t.Context(), d)
	if err != nil || got.Path != p || got.Manifest == nil || got.Manifest.Name != "x" {
		t.Fatalf("Approval = %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(data, "plugins", "approvals", d+".json")); err != nil {
		t.Fatalf("approval file: %v", err)
	}
	for _, bad := range []string{"../../etc/passwd", strings.ToUpper(d), "abc"} {
		if _, err := c.Approval(t.Context(), bad); err == nil || errors.Is(err, ports.ErrNotFound) {
			t.Errorf("Approval(%q) = %v, want a refusal", bad, err)
		}
	}
	write(t, filepath.Join(data, "plugins", "approvals", strings.Repeat("a", 64)+".json"), "{", 0o600)
	if _, err := c.Approval(t.Context(), strings.Repeat("a", 64)); !errors.Is(err, ports.ErrCorrupt) {
		t.Fatalf("corrupt approval = %v", err)
	}
}

// TestApprovalsByName: the approvals of one name, each bound to a real
// path (an older record without one resolves its path); a corrupt file
// approves nothing.
func TestApprovalsByName(t *testing.T) {
	data, dir := t.TempDir(), t.TempDir()
	c := NewCatalog(data)
	real := filepath.Join(dir, "jp-x")
	write(t, real, "binary", 0o755)
	link := filepath.Join(dir, "jp-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, a := range []plugin.Approval{
		{SHA256: strings.Repeat("1", 64), Path: link, Name: "x"},
		{SHA256: strings.Repeat("2", 64), Path: "/gone/jp-x", RealPath: "/gone/jp-x", Name: "x", Via: plugin.ViaUnattended},
		{SHA256: strings.Repeat("3", 64), Path: real, Name: "y"},
	} {
		if err := c.SaveApproval(t.Context(), a); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(data, "plugins", "approvals", strings.Repeat("a", 64)+".json"), "{", 0o600)
	got, err := c.Approvals(t.Context(), "x")
	if err != nil || len(got) != 2 {
		t.Fatalf("Approvals = %+v, %v", got, err)
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	if got[0].RealPath != filepath.Join(realDir, "jp-x") || got[1].RealPath != "/gone/jp-x" || got[1].Via != plugin.ViaUnattended {
		t.Fatalf("Approvals = %+v", got)
	}
}

// TestShipped: a binary jp installed is one in jp's own directory whose
// checksum the list written at install gives it; not a copy elsewhere,
// not another digest, not without the list.
func TestShipped(t *testing.T) {
	exeDir, other := t.TempDir(), t.TempDir()
	c := NewCatalog(t.TempDir()).WithExeDir(exeDir)
	p := filepath.Join(exeDir, "jp-titles")
	write(t, p, "script", 0o755)
	write(t, filepath.Join(other, "jp-titles"), "script", 0o755)
	sum := sha256.Sum256([]byte("script"))
	d := hex.EncodeToString(sum[:])
	if ok, err := c.Shipped(t.Context(), p, d); ok || err != nil {
		t.Fatalf("Shipped without a list = %v, %v", ok, err)
	}
	write(t, filepath.Join(exeDir, plugin.ShippedList), d+"  jp-titles\n", 0o644)
	if ok, err := c.Shipped(t.Context(), p, d); !ok || err != nil {
		t.Fatalf("Shipped = %v, %v", ok, err)
	}
	if ok, _ := c.Shipped(t.Context(), filepath.Join(other, "jp-titles"), d); ok {
		t.Fatal("a copy outside jp's directory is shipped")
	}
	if ok, _ := c.Shipped(t.Context(), p, strings.Repeat("0", 64)); ok {
		t.Fatal("another digest is shipped")
	}
	write(t, filepath.Join(exeDir, plugin.ShippedList), "garbage\n", 0o644)
	if ok, err := c.Shipped(t.Context(), p, d); ok || err == nil || !strings.Contains(err.Error(), "reinstall jp") {
		t.Fatalf("Shipped with a broken list = %v, %v", ok, err)
	}
	// The list itself is never taken for a plugin.
	if err := os.Chmod(filepath.Join(exeDir, plugin.ShippedList), 0o755); err != nil {
		t.Fatal(err)
	}
	bins, err := c.Discover(t.Context(), []string{exeDir})
	if err != nil || len(bins) != 1 || bins[0].FileName() != "jp-titles" {
		t.Fatalf("Discover = %+v, %v", bins, err)
	}
}

// TestDigestCache: a digest is read from the cache while the file's
// identity (inode, size, mtime, ctime) is unchanged, and computed again
// after any write.
func TestDigestCache(t *testing.T) {
	data := t.TempDir()
	c := NewCatalog(data)
	p := filepath.Join(t.TempDir(), "jp-x")
	write(t, p, "binary", 0o755)
	// Just written: not cached yet (it may change again unnoticed).
	d, err := c.Digest(t.Context(), p)
	if err != nil || len(c.readDigests()) != 0 {
		t.Fatalf("Digest of a file just written = %s, %v; cache %v", d, err, c.readDigests())
	}
	// Later, its digest is cached.
	c.now = func() time.Time { return time.Now().Add(time.Hour) }
	if _, err := c.Digest(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	cache := c.readDigests()
	if len(cache) == 0 {
		t.Skip("no file identity to cache digests by on this system")
	}
	// A cached entry is what Digest answers: rewrite it to prove it.
	fake := strings.Repeat("f", 64)
	for k := range cache {
		cache[k] = fake
	}
	c.saveDigest(cache, "unused", fake)
	if got, err := c.Digest(t.Context(), p); err != nil || got != fake {
		t.Fatalf("Digest with a cached entry = %s, %v; want the cached %s (computed %s)", got, err, fake, d)
	}
	// Rewritten, its mtime set back: another key, hashed again.
	st, _ := os.Stat(p)
	write(t, p, "BINARY2", 0o755)
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("BINARY2"))
	if got, err := c.Digest(t.Context(), p); err != nil || got != hex.EncodeToString(sum[:]) {
		t.Fatalf("Digest after a rewrite = %s, %v", got, err)
	}
}
