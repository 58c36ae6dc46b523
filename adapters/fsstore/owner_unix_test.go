//go:build unix

package fsstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

// foreignSelf makes paths look owned by another user and returns the user
// the store must check owners against: as root the paths are given to
// uid 65534; otherwise the store checks against a uid that is not the
// runner's, so the runner's files are the other user's.
func foreignSelf(t *testing.T, paths ...string) uint32 {
	t.Helper()
	uid := os.Getuid()
	if uid != 0 {
		return uint32(uid) + 1 //nolint:gosec // a uid is never negative on unix
	}
	for _, p := range paths {
		if err := os.Lchown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	return 0
}

// requireRoot skips a test that needs root, saying why; under CI=true,
// where the runner is root, it fails instead.
func requireRoot(t *testing.T, why string) {
	t.Helper()
	if os.Getuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s needs root, and CI runs as root: run this test as root", why)
	}
	t.Skipf("%s needs root (chown); run as root to cover it", why)
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindRefusesWorkspaceOwnedByAnotherUser(t *testing.T) {
	ctx := context.Background()
	root := newCheckout(t, "own0001")
	sub := filepath.Join(root, "a", "b")
	mkdirs(t, sub)
	self := foreignSelf(t, filepath.Join(root, ".jp"))

	s, _ := newTestStore(t, withUID(self), WithSafeDirectories(func() ([]string, string, error) {
		return []string{"/elsewhere", root + "x"}, "/u/config.toml", nil
	}))
	_, err := s.Find(ctx, sub)
	var fe *ports.ForeignOwnerError
	if !errors.As(err, &fe) || !errors.Is(err, ports.ErrForeignOwner) {
		t.Fatalf("Find in another user's workspace = %v, want a ForeignOwnerError", err)
	}
	if fe.Dir != root || fe.Path != filepath.Join(root, ".jp") || fe.Owner == "" {
		t.Errorf("error names %+v, want dir %s and its .jp", fe, root)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, `safe_directories = ["`+root+`"]`) || !strings.Contains(msg, "/u/config.toml") {
		t.Errorf("message %q is not one line naming safe_directories and the user's file", msg)
	}

	for _, list := range [][]string{{root}, {"*"}, {filepath.Dir(root) + "/*"}} {
		s, _ := newTestStore(t, withUID(self), WithSafeDirectories(func() ([]string, string, error) { return list, "", nil }))
		f, err := s.Find(ctx, sub)
		if err != nil || f.Root != root {
			t.Errorf("with safe_directories %q: Find = %+v, %v; want %s", list, f, err, root)
		}
	}

	bad := errors.New("bad file")
	s, _ = newTestStore(t, withUID(self), WithSafeDirectories(func() ([]string, string, error) { return nil, "", bad }))
	if _, err := s.Find(ctx, sub); !errors.Is(err, bad) {
		t.Errorf("unreadable safe_directories: Find = %v, want the read error", err)
	}
}

func TestFindRefusesForeignJPToml(t *testing.T) {
	ctx := context.Background()
	root := newCheckout(t, "own0002")
	mid := filepath.Join(root, "mid")
	sub := filepath.Join(mid, "sub")
	mkdirs(t, sub)
	toml := filepath.Join(mid, ".jp.toml")
	writeFile(t, toml, []byte("[conversation]\n"))
	requireRoot(t, "giving one file of the checkout to another user")
	foreignSelf(t, toml)
	s, _ := newTestStore(t)
	_, err := s.Find(ctx, sub)
	var fe *ports.ForeignOwnerError
	if !errors.As(err, &fe) || fe.Path != toml || fe.Dir != mid {
		t.Fatalf("Find below another user's .jp.toml = %v, want it refused naming %s", err, toml)
	}
	// Above the launch directory's workspace, it is not read: no refusal.
	if f, err := s.Find(ctx, root); err != nil || f.Root != root {
		t.Errorf("Find at the root = %+v, %v", f, err)
	}
}

func TestFindStopsAtWorldWritableDirectoryOfOthers(t *testing.T) {
	ctx := context.Background()
	base := newCheckout(t, "own0003") // a workspace above the shared directory
	shared := filepath.Join(base, "shared")
	sub := filepath.Join(shared, "sub")
	mkdirs(t, sub)
	writeFile(t, filepath.Join(shared, ".jp", ".id"), []byte("own0004\n"))
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	// shared is the runner's; to the store it belongs to someone else.
	other := uint32(os.Getuid()) + 1 //nolint:gosec // never negative on unix
	s, _ := newTestStore(t, withUID(other))
	_, err := s.Find(ctx, sub)
	if !errors.Is(err, ports.ErrNoWorkspace) || !strings.Contains(err.Error(), "others may write into") {
		t.Fatalf("Find through a world-writable directory of another user = %v, want no workspace (neither %s nor %s)", err, shared, base)
	}
	// The user's own world-writable directory is used.
	s, _ = newTestStore(t, withUID(uint32(os.Getuid()))) //nolint:gosec // never negative on unix
	if f, err := s.Find(ctx, sub); err != nil || f.Root != shared {
		t.Errorf("own world-writable directory: Find = %+v, %v; want %s", f, err, shared)
	}
	// Not world-writable: used, whoever owns it.
	if err := os.Chmod(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	s, _ = newTestStore(t, withUID(other))
	f, err := s.Find(ctx, sub)
	var fe *ports.ForeignOwnerError
	switch {
	case os.Getuid() == 0 && (err != nil || f.Root != shared):
		// Owned by root, which every user may use.
		t.Errorf("directory not world-writable: Find = %+v, %v; want %s", f, err, shared)
	case os.Getuid() != 0 && (!errors.As(err, &fe) || fe.Dir != shared):
		// Owned by the runner, another user to the store: reached, refused.
		t.Errorf("directory not world-writable: Find = %+v, %v; want %s reached and refused", f, err, shared)
	}
}

func TestFindStopsAtHome(t *testing.T) {
	ctx := context.Background()
	base := newCheckout(t, "own0005")
	home := filepath.Join(base, "home")
	inside := filepath.Join(home, "src", "p")
	outside := filepath.Join(base, "srv")
	mkdirs(t, inside, outside)

	s, _ := newTestStore(t, WithHome(home))
	_, err := s.Find(ctx, inside)
	if !errors.Is(err, ports.ErrNoWorkspace) || !strings.Contains(err.Error(), "home directory") {
		t.Fatalf("Find inside home, workspace above it = %v, want no workspace", err)
	}
	if f, err := s.Find(ctx, outside); err != nil || f.Root != base {
		t.Errorf("Find outside home = %+v, %v; want %s", f, err, base)
	}
	writeFile(t, filepath.Join(home, ".jp", ".id"), []byte("own0006\n"))
	if f, err := s.Find(ctx, inside); err != nil || f.Root != home {
		t.Errorf("workspace at home itself: Find = %+v, %v; want %s", f, err, home)
	}
}

// TestStorageDocForeignOwner: docs/storage.md shows the refusal of another
// user's workspace exactly as jp prints it.
func TestStorageDocForeignOwner(t *testing.T) {
	err := &ports.ForeignOwnerError{Path: "/tmp/shared/.jp", Dir: "/tmp/shared", Owner: "nobody", ConfigFile: "/home/me/.config/jp/config.toml"}
	doc := string(readFile(t, filepath.Join("..", "..", "docs", "storage.md")))
	if want := "jp: " + err.Error() + "\n"; !strings.Contains(doc, want) {
		t.Fatalf("docs/storage.md does not show the refusal as jp prints it:\n%s", want)
	}
}
