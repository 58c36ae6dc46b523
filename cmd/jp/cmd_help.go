package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
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

// versionLine is "jp VERSION (commit C[, modified], GOVERSION OS/ARCH)",
// read from the build information the Go toolchain embeds.
func versionLine() string {
	commit, modified := "unknown", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
				if len(commit) > 12 {
					commit = commit[:12]
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += ", modified"
	}
	return fmt.Sprintf("jp %s (commit %s, %s %s/%s)", Version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
