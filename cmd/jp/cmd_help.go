package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// HelpCmd is jp help [COMMAND...]. Main turns it into COMMAND... --help
// before parsing, so this Run only runs for a bare "jp help" that kong
// parsed itself (never, in practice).
type HelpCmd struct {
	Command []string `arg:"" optional:"" help:"The command to show help for, e.g. conversation fork."`
}

// Run is unreachable: Main rewrites jp help.
func (c *HelpCmd) Run(rt *Runtime) error { return nil }

// helpArgs rewrites "help CMD..." into "CMD... --help".
func helpArgs(args []string) []string {
	if len(args) == 0 || args[0] != "help" {
		return args
	}
	return append(append([]string{}, args[1:]...), "--help")
}

// VersionCmd is jp version.
type VersionCmd struct{}

// Run prints the version line.
func (c *VersionCmd) Run(rt *Runtime) error {
	_, err := fmt.Fprintln(rt.Streams.Out, versionLine())
	return err
}

// versionLine is "jp VERSION (commit C[, modified], GOVERSION OS/ARCH)":
// the commit stamped at build time, else the one the Go toolchain embeds.
func versionLine() string {
	var settings []debug.BuildSetting
	if bi, ok := debug.ReadBuildInfo(); ok {
		settings = bi.Settings
	}
	return formatVersion(Version, Commit, settings, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
}

// formatVersion builds the version line. A stamped commit (the
// Makefile's -X main.Commit) wins over the build information's
// vcs.revision; "unknown" only when neither is there. ", modified" comes
// from vcs.modified, and only when it describes the commit shown.
func formatVersion(version, stamped string, settings []debug.BuildSetting, goVersion, platform string) string {
	revision, modified := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	commit := strings.TrimSpace(stamped)
	switch {
	case commit != "":
		if revision == "" || !strings.HasPrefix(revision, commit) {
			modified = false // the toolchain's flag is about another commit
		}
	case revision != "":
		commit = revision
	default:
		commit, modified = "unknown", false
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if modified {
		commit += ", modified"
	}
	return fmt.Sprintf("jp %s (commit %s, %s %s)", version, commit, goVersion, platform)
}
