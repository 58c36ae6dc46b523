package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pluginSandbox is a sandbox for running jp (this test binary, with
// JP_TEST_RUN_MAIN=1) and real plugins: its own XDG directories, a
// workspace, and a bin directory first on $PATH.
type pluginSandbox struct {
	t    *testing.T
	dir  string
	ws   string
	bin  string
	data string
	exe  string
	env  []string
}

func newPluginSandbox(t *testing.T) *pluginSandbox {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e := &pluginSandbox{t: t, dir: dir, ws: filepath.Join(dir, "w"), bin: filepath.Join(dir, "bin"),
		data: filepath.Join(dir, "data", "jp"), exe: exe}
	for _, d := range []string{e.ws, e.bin, filepath.Join(dir, "config", "jp"), filepath.Join(dir, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.env = append(append(os.Environ(), isolatedEnv(filepath.Join(dir, "home"), filepath.Join(dir, "data"), filepath.Join(dir, "config"))...),
		"JP_TEST_RUN_MAIN=1", "PATH="+e.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"NO_COLOR=1", "GORACE=atexit_sleep_ms=0", "JP_HEADLESS=")
	e.write(filepath.Join(dir, "config", "jp", "config.toml"), "[plugins.command.titles]\nrun = \"unattended\"\n"+
		"[plugins.command.prune]\nrun = \"unattended\"\n[plugins.command.tprompt]\nrun = \"unattended\"\n", 0o644)
	e.jp("", "init", ".")
	return e
}

func (e *pluginSandbox) write(path, content string, mode os.FileMode) {
	e.t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		e.t.Fatal(err)
	}
}

// install copies a file from the repository into the bin directory.
func (e *pluginSandbox) install(src string) {
	e.t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		e.t.Fatal(err)
	}
	e.write(filepath.Join(e.bin, filepath.Base(src)), string(b), 0o755)
}

// run runs jp in the workspace with stdin and returns stdout, stderr and
// the exit code.
func (e *pluginSandbox) run(stdin string, args ...string) (string, string, int) {
	e.t.Helper()
	cmd := exec.Command(e.exe, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = e.ws, e.env, strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// jp runs jp and fails the test unless it exits 0.
func (e *pluginSandbox) jp(stdin string, args ...string) string {
	e.t.Helper()
	out, errs, code := e.run(stdin, args...)
	if code != 0 {
		e.t.Fatalf("jp %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// buildPrunePlugin builds cmd/jp-prune into dir.
func buildPrunePlugin(t *testing.T, dir string) string {
	t.Helper()
	return goBuild(t, filepath.Join(dir, "jp-prune"), "../jp-prune")
}

// TestExamplePlugins runs the example plugins as `make install` installs
// them: the jp-titles script and the built jp-prune, each with its
// manifest beside it on $PATH.
func TestExamplePlugins(t *testing.T) {
	t.Parallel()
	e := newPluginSandbox(t)
	prune := buildPrunePlugin(t, t.TempDir())
	e.install("../jp-titles/jp-titles")
	e.install("../jp-titles/jp-titles.manifest.json")
	e.install(prune)
	e.install("../jp-prune/jp-prune.manifest.json")
	e.jp("", "q", "--new", `Refactor \config "quoted"`)
	e.jp("", "q", "--new", "second question")

	if got := e.jp("", "titles"); got != "second question\nRefactor \\config \"quoted\"\n" {
		t.Fatalf("jp titles printed %q", got)
	}
	if got := e.jp("", "-h"); !strings.Contains(got, "Plugins:") || !strings.Contains(got, "prune ") || !strings.Contains(got, "titles ") {
		t.Fatalf("jp -h:\n%s", got)
	}
	if got := e.jp("", "prune", "-h"); !strings.Contains(got, "Usage: jp prune [--days N] [--yes]") {
		t.Fatalf("jp prune -h:\n%s", got)
	}

	// echo '' | jp prune --days 0: no terminal, exit 1 naming --yes.
	out, errs, code := e.run("\n", "prune", "--days", "0")
	if code != 1 || !strings.Contains(errs, "run jp prune --days 0 --yes") || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if got := e.jp("", "conversation", "ls"); strings.Contains(got, "No conversations") {
		t.Fatalf("prune changed something without an answer:\n%s", got)
	}
	if got := e.jp("", "prune", "--days", "0", "--yes"); !strings.Contains(got, "Archived 2 conversations") {
		t.Fatalf("jp prune --yes printed %q", got)
	}
	if got := e.jp("", "conversation", "ls", "--archived"); !strings.Contains(got, "second question") || !strings.Contains(got, "Refactor") {
		t.Fatalf("archived:\n%s", got)
	}
}
