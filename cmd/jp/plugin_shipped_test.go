package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestShippedPluginsNeedNoApproval installs jp and jp-titles into one
// directory the way make build and make install do, with the
// jp-plugins.sha256 list of the plugins' checksums (written by
// sha256sum, as the Makefile does, when it is there): jp titles runs with
// no approval and stdin from /dev/null. Only those exact binaries are
// trusted: the same script in another directory, or changed after
// install, is asked about (and refused without a terminal).
func TestShippedPluginsNeedNoApproval(t *testing.T) {
	t.Parallel()
	e := newPluginSandbox(t)
	e.jp("", "q", "--new", "Refactor config")
	// No approval in the configuration.
	e.write(filepath.Join(e.dir, "config", "jp", "config.toml"), "", 0o644)

	inst := t.TempDir()
	linkOrCopy(t, e.exe, filepath.Join(inst, "jp"))
	titles := filepath.Join(inst, "jp-titles")
	copyFile(t, "../jp-titles/jp-titles", titles, 0o755)
	copyFile(t, "../jp-titles/jp-titles.manifest.json", titles+".manifest.json", 0o644)
	writeShippedList(t, inst, "jp-titles")

	// The install directory is on PATH, as $GOBIN is.
	env := append(append([]string(nil), e.env...), "PATH="+inst+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := func(exe string) (string, string, int) {
		t.Helper()
		devnull, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer devnull.Close()
		cmd := exec.Command(exe, "titles")
		cmd.Dir, cmd.Env, cmd.Stdin = e.ws, env, devnull
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err = cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return out.String(), errb.String(), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), 0
	}
	if out, errs, code := run(filepath.Join(inst, "jp")); code != 0 || out != "Refactor config\n" {
		t.Fatalf("jp titles </dev/null beside jp-plugins.sha256: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	// The test's own jp (another directory) does not trust it: the list
	// is only read beside the running jp.
	e.install("../jp-titles/jp-titles")
	e.install("../jp-titles/jp-titles.manifest.json")
	if _, errs, code := e.run("", "titles"); code != 1 || !strings.Contains(errs, "has not been approved") {
		t.Fatalf("jp-titles outside jp's directory: exit %d, stderr %q", code, errs)
	}

	// Changed after install: no longer the binary the list names.
	f, err := os.OpenFile(titles, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("# changed\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := run(filepath.Join(inst, "jp")); code != 1 || !strings.Contains(errs, "has not been approved") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("a changed jp-titles: exit %d, stderr %q", code, errs)
	}
}

// writeShippedList writes dir/jp-plugins.sha256 for names: with
// sha256sum, as the Makefile does, when it is installed.
func writeShippedList(t *testing.T, dir string, names ...string) {
	t.Helper()
	var data []byte
	if _, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command("sha256sum", names...)
		cmd.Dir = dir
		if data, err = cmd.Output(); err != nil {
			t.Fatal(err)
		}
	} else {
		var b strings.Builder
		for _, n := range names {
			raw, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(raw)
			fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
		}
		data = []byte(b.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "jp-plugins.sha256"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// linkOrCopy puts src at dst: a hard link when the file system allows
// it, else a copy.
func linkOrCopy(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.Link(src, dst); err == nil {
		return
	}
	copyFile(t, src, dst, 0o755)
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
