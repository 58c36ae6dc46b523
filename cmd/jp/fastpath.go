package main

import "fmt"

// quickPaths turns quickVersion on; a test turns it off to compare the
// quick answers with kong's.
var quickPaths = true

// quickVersion answers "jp --version" and "jp version" before the CLI is
// built: building kong's model of every command costs more than the rest
// of the start (reflection over all command structs, tag parsing,
// interpolation), and neither answer depends on it. Only these exact
// argument lists are taken, and not while the shell asks for completions;
// anything else (a flag beside them, -h, a plugin named version) goes
// through kong as before. The bytes printed are the kong path's, which
// TestQuickVersionMatchesKong pins.
func quickVersion(args, environ []string, s Streams) (code int, ok bool) {
	if !quickPaths || len(args) != 1 || (args[0] != "--version" && args[0] != "version") || completing(environ) {
		return 0, false
	}
	_, err := fmt.Fprintln(s.Out, versionLine())
	if args[0] == "version" {
		return reportError(s.Err, err), true // as Main reports VersionCmd.Run's error
	}
	return ExitOK, true // kong's VersionFlag ignores a write error and exits 0
}
