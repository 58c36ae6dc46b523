package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocGoPluginExample builds the Go plugin of docs/plugins.md ("Writing
// a plugin in Go"; the doc's block is checked to be part of its source by
// TestDocExamplesAreExecuted) and runs it through jp: answered yes it
// archives every conversation and prints done; with no terminal and no
// script it exits 1 with the reason the example gives, changing nothing;
// declined it changes nothing.
func TestDocGoPluginExample(t *testing.T) {
	t.Parallel()
	e := newPluginSandbox(t)
	goBuild(t, filepath.Join(e.bin, "jp-archive"), "./testdata/plugins/jp-archive")
	e.write(filepath.Join(e.dir, "config", "jp", "config.toml"), "[plugins.command.archive]\nrun = \"unattended\"\n", 0o644)
	e.jp("", "q", "--new", "first")
	e.jp("", "q", "--new", "second")

	out, errs, code := e.run("", "archive")
	if code != 1 || !strings.Contains(errs, "no terminal to ask: pass --yes") || out != "" {
		t.Fatalf("no terminal: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	no := filepath.Join(e.dir, "no.jph")
	e.write(no, "confirm @plugin:archive no\n", 0o644)
	if out := e.jp("", "--headless", no, "archive"); out != "" {
		t.Fatalf("declined: stdout %q", out)
	}
	if got := e.jp("", "conversation", "ls"); !strings.Contains(got, "first") || !strings.Contains(got, "second") {
		t.Fatalf("a declined run changed something:\n%s", got)
	}
	yes := filepath.Join(e.dir, "yes.jph")
	e.write(yes, "confirm @plugin:archive yes\n", 0o644)
	if out := e.jp("", "--headless", yes, "archive"); out != "done\n" {
		t.Fatalf("answered yes: stdout %q", out)
	}
	got := e.jp("", "conversation", "ls", "--archived")
	if !strings.Contains(got, "first") || !strings.Contains(got, "second") {
		t.Fatalf("not archived:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(e.bin, "jp-archive")); err != nil {
		t.Fatal(err)
	}
}
