//go:build unix

package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestForeignOwnedWorkspaceRefused: a .jp/ another user (uid 65534)
// created in a shared, world-writable directory is refused when root runs
// jp q in a subdirectory: one line naming the owner and safe_directories,
// its cmd: attachment never runs and nothing is written into the
// directory. With the directory in the user's safe_directories, it runs.
func TestForeignOwnedWorkspaceRefused(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("TestForeignOwnedWorkspaceRefused gives a .jp/ to uid 65534 with chown, which needs root; CI runs as root: run it as root")
		}
		t.Skip("needs root to give a .jp/ to another user (chown to uid 65534)")
	}
	e := newJPEnv(t)
	base := filepath.Dir(e.dir)
	marker := filepath.Join(base, "ran-marker")
	shared, sub, dotjp := foreignWorkspace(t, base, marker)
	before := treeOf(t, shared)

	q := func() (string, error) {
		cmd := e.command(context.Background(), "q", "hello")
		cmd.Dir = sub
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := q()
	if err == nil {
		t.Fatalf("jp q in another user's workspace succeeded:\n%s", out)
	}
	line := strings.TrimSpace(out)
	if strings.Contains(line, "\n") || !strings.Contains(line, "refusing the workspace at "+shared) ||
		!strings.Contains(line, dotjp+" is owned by ") || !strings.Contains(line, `safe_directories = ["`+shared+`"]`) {
		t.Errorf("refusal is not one line naming %s, its owner and safe_directories:\n%s", shared, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the foreign workspace's cmd: attachment ran")
	}
	if after := treeOf(t, shared); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("jp wrote into the foreign workspace:\nbefore %q\nafter  %q", before, after)
	}

	// A safe_directories in the workspace's own file changes nothing.
	if err := os.WriteFile(filepath.Join(shared, ".jp.toml"), []byte("safe_directories = [\"*\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := q(); err == nil || !strings.Contains(out, "refusing the workspace") {
		t.Errorf("safe_directories in the workspace's .jp.toml allowed it:\n%s", out)
	}
	if err := os.Remove(filepath.Join(shared, ".jp.toml")); err != nil {
		t.Fatal(err)
	}

	// The user allows it.
	cfg := filepath.Join(base, "config", "jp", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("safe_directories = [\""+shared+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Allowed is not trusted: its cmd: attachment waits for trust.
	if out, err := q(); err != nil {
		t.Fatalf("jp q with the directory in safe_directories: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an allowed but untrusted workspace ran its cmd: attachment")
	}
	trust := e.command(context.Background(), "workspace", "trust")
	trust.Dir = sub
	if out, err := trust.CombinedOutput(); err != nil {
		t.Fatalf("jp workspace trust: %v\n%s", err, out)
	}
	if out, err := q(); err != nil {
		t.Fatalf("jp q in the trusted workspace: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("with safe_directories the workspace's configuration was not applied: %v", err)
	}
}

// foreignWorkspace makes base/shared (world-writable, sticky) a workspace
// whose .jp/ belongs to nobody, its configuration attaching a command
// that touches marker; sub is a directory inside it.
func foreignWorkspace(t *testing.T, base, marker string) (shared, sub, dotjp string) {
	t.Helper()
	shared = filepath.Join(base, "shared")
	sub = filepath.Join(shared, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	dotjp = filepath.Join(shared, ".jp")
	if err := os.MkdirAll(dotjp, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		".id":         "own0e2e\n",
		"config.toml": "[conversation]\nattachments = [\"cmd:touch " + marker + "\"]\n",
	} {
		if err := os.WriteFile(filepath.Join(dotjp, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := filepath.WalkDir(dotjp, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
	return shared, sub, dotjp
}

// treeOf lists every path under dir with its size, sorted.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, p+" "+fi.Mode().String()+" "+strconv.FormatInt(fi.Size(), 10))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
