package main

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jpcli/jp/internal/testkit"
)

// nobody is the uid (and gid) the read-only test runs jp as when the test
// runs as root, for whom permission bits do not stop writes.
const nobody = 65534

// TestReadOnlyDataDir: with the data directory read-only (chmod -R a-w),
// the commands that only read still work, registration of the checkout is
// skipped with one warning at -v, and a command that must write fails with
// one line that does not repeat its own prefix.
func TestReadOnlyDataDir(t *testing.T) {
	t.Parallel()
	e := newJPEnv(t)
	e.run("init")
	e.run("q", "hello")
	id := strings.TrimSpace(e.run("conversation", "ls", "--format", "json"))
	if !strings.Contains(id, `"id"`) {
		t.Fatalf("no conversation listed: %s", id)
	}
	convID := jsonField(t, id, "id")

	exe, cred := jpAsNobody(t, e)
	chmodTree(t, e.data, false)
	t.Cleanup(func() { chmodTree(t, e.data, true) })

	run := func(args ...string) (string, string, error) {
		cmd := exec.CommandContext(context.Background(), exe, args...)
		cmd.Dir, cmd.Env = e.dir, e.env
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}

	// The data directory really is read-only for the jp we run.
	if _, _, err := run("conversation", "rm", "--yes", convID); err == nil {
		t.Fatal("jp conversation rm succeeded on a read-only data directory: the test does not make it read-only")
	}

	for _, args := range [][]string{
		{"conversation", "ls"},
		{"conversation", "show", convID},
		{"workspace", "ls"},
		{"config", "show"},
	} {
		out, errOut, err := run(args...)
		if err != nil {
			t.Errorf("jp %s on a read-only data directory: %v\n%s", strings.Join(args, " "), err, errOut)
			continue
		}
		if errOut != "" {
			t.Errorf("jp %s wrote to stderr without -v: %q", strings.Join(args, " "), errOut)
		}
		if args[0] == "conversation" && !strings.Contains(out, "hello") && !strings.Contains(out, convID) {
			t.Errorf("jp %s does not show the conversation:\n%s", strings.Join(args, " "), out)
		}
	}

	// At -v the skipped registration is one warning, naming the checkout
	// once.
	_, errOut, err := run("-v", "conversation", "ls")
	if err != nil {
		t.Fatalf("jp -v conversation ls: %v\n%s", err, errOut)
	}
	if n := strings.Count(errOut, "checkout not recorded"); n != 1 {
		t.Fatalf("want one registration warning at -v, got %d:\n%s", n, errOut)
	}
	for _, l := range strings.Split(errOut, "\n") {
		if strings.Contains(l, "checkout not recorded") {
			if strings.Count(l, "register checkout") != 1 {
				t.Fatalf("the warning repeats its prefix: %s", l)
			}
		}
	}

	// A command that must write fails with one line, no prefix twice.
	_, errOut, err = run("q", "more")
	if err == nil {
		t.Fatal("jp q succeeded on a read-only data directory")
	}
	msg := strings.TrimSpace(errOut)
	if strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "jp: ") {
		t.Fatalf("want one jp: line, got:\n%s", errOut)
	}
	if p := testkit.RepeatedPrefix(msg); p != "" {
		t.Fatalf("error repeats %q: %s", p, msg)
	}
}

// jpAsNobody is the jp binary to run and the credentials to run it with:
// as root, which writes through any mode, a copy run as nobody owning the
// test's files (so that it may read them and cannot write where a-w);
// otherwise this binary as the user.
func jpAsNobody(t *testing.T, e *jpEnv) (string, *syscall.Credential) {
	t.Helper()
	exe := os.Args[0]
	if os.Geteuid() != 0 {
		return exe, nil
	}
	cred := &syscall.Credential{Uid: nobody, Gid: nobody}
	base := filepath.Dir(e.dir)
	bin := filepath.Join(base, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	exe = filepath.Join(bin, "jp")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	// Let nobody reach the base directory and own everything under it.
	for d := base; d != "/" && d != "."; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o001 == 0 {
			if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := filepath.WalkDir(base, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
	return exe, cred
}

// chmodTree removes (writable false) or restores the write bits of every
// file and directory under root.
func chmodTree(t *testing.T, root string, writable bool) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		m := fi.Mode().Perm()
		if writable {
			m |= 0o200
		} else {
			m &^= 0o222
		}
		return os.Chmod(p, m)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// jsonField extracts the first string value of key from a JSON text.
func jsonField(t *testing.T, text, key string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, `"`+key+`":`)
	if !ok {
		t.Fatalf("no %s in %s", key, text)
	}
	rest = strings.TrimLeft(rest, ` "`)
	v, _, _ := strings.Cut(rest, `"`)
	return v
}
