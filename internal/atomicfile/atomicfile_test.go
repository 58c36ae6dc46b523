package atomicfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/internal/atomicfile"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteNewFileHasPermAndNoDebris(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "token.json")
	if err := atomicfile.Write(p, []byte("secret"), atomicfile.Options{Perm: 0o600}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	if got := entries(t, dir); len(got) != 1 || got[0] != "token.json" {
		t.Errorf("directory holds %v, want only token.json", got)
	}
}

func TestWriteKeepsModeOfExistingFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(p, []byte("new"), atomicfile.Options{Perm: 0o644}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want the file's own 0640", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content = %q", b)
	}
}

func TestFailedFillLeavesOldContentAndNoTemp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := atomicfile.WriteFunc(p, atomicfile.Options{}, func(f *os.File) error {
		_, _ = f.WriteString("half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("content = %q, want old", b)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("directory holds %v, want only f", got)
	}
}

func TestSyncHookAndStage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	syncs := 0
	o := atomicfile.Options{Sync: func(f *os.File) error { syncs++; return f.Sync() }}
	tmp, err := atomicfile.Stage(p, []byte("x"), o)
	if err != nil {
		t.Fatal(err)
	}
	if syncs != 1 {
		t.Errorf("syncs = %d, want 1", syncs)
	}
	if !strings.HasPrefix(filepath.Base(tmp), ".f"+atomicfile.TempMarker) || filepath.Dir(tmp) != dir {
		t.Errorf("temp %s is not beside %s with the marker", tmp, p)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("Stage created the target: %v", err)
	}
	if err := atomicfile.Replace(p, []byte("y"), o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "y" {
		t.Errorf("content = %q", b)
	}
}

func TestReplacesSymlinkRatherThanWritingThrough(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("target"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(link, []byte("new"), atomicfile.Options{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "target" {
		t.Errorf("wrote through the link: target = %q", b)
	}
}

func TestRootConfinesTheWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	o := atomicfile.Options{FS: root, Perm: 0o644}
	if err := atomicfile.Write("a.txt", []byte("in"), o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "in" {
		t.Errorf("a.txt = %q", b)
	}
	if err := atomicfile.Write("../escape.txt", []byte("out"), o); err == nil {
		t.Error("a write outside the root succeeded")
	}
}

func TestSecretIsAlways0600(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "tokens.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(p, []byte("new"), atomicfile.Options{Perm: 0o600, Secret: true}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
}

// A Marker names the temporary file as its writer's, and IsTemp knows
// that name (and only that shape) again.
func TestMarkerAndIsTemp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tmp, err := atomicfile.Stage(filepath.Join(dir, "a.go"), []byte("x"), atomicfile.Options{Marker: ".jp-tmp-"})
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(tmp)
	if !strings.HasPrefix(base, ".a.go.jp-tmp-") || !atomicfile.IsTemp(base, ".jp-tmp-") {
		t.Errorf("temporary file %q is not .a.go.jp-tmp-<hex>", base)
	}
	if atomicfile.IsTemp(base, "") {
		t.Errorf("%q matches the default marker", base)
	}
	for name, want := range map[string]bool{
		".a.go.tmp-0123456789ab": true, "a.go.tmp-0123456789ab": false, ".a.go.tmp-0123456789": false,
		".a.go.tmp-0123456789AB": false, ".tmp-0123456789ab": false, ".a.go.tmp-0123456789abc": false,
	} {
		if got := atomicfile.IsTemp(name, ""); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}
