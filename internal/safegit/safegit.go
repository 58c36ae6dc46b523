// Package safegit builds the command line and environment of every git
// command jp runs, so that a repository's own configuration (.git/config,
// which arrives with an archive or sits in a shared directory, and
// .gitattributes, which is committed) cannot make git run a program:
//
//   - core.fsmonitor=false and core.hooksPath=/dev/null: no file system
//     monitor command and no hook;
//   - --no-pager, core.pager=cat and GIT_PAGER=cat: no pager;
//   - diff.external empty (callers that diff add --no-ext-diff and
//     --no-textconv): no external diff or textconv command;
//   - every filter driver the configuration defines
//     (filter.<name>.clean, .smudge, .process) emptied and not required,
//     core.attributesFile=/dev/null, GIT_ATTR_NOSYSTEM and
//     GIT_CONFIG_NOSYSTEM: no clean or smudge command;
//   - credential.helper and core.askPass emptied, GIT_TERMINAL_PROMPT=0:
//     no credential helper and no password prompt;
//   - protocol.allow=never (protocol.ext.allow=never besides), core.sshCommand=ssh and
//     GIT_NO_LAZY_FETCH=1: git reaches no remote, so no transport command
//     runs (a partial clone's missing objects are not fetched);
//   - log.showSignature=false: no gpg program.
//
// What remains: a filter driver defined only in a submodule's
// configuration (callers keep git out of submodules with
// --ignore-submodules=dirty), and git itself, found on PATH.
//
// The package only builds argument and environment lists; running them
// is the caller's.
package safegit

import (
	"bytes"
	"fmt"
	"strings"
)

// overrides are the -c settings every git command gets.
var overrides = []string{
	"core.fsmonitor=false",
	"core.hooksPath=/dev/null",
	"core.pager=cat",
	"core.attributesFile=/dev/null",
	"core.askPass=",
	"core.sshCommand=ssh",
	"credential.helper=",
	"diff.external=",
	"protocol.allow=never",
	"protocol.ext.allow=never",
	"log.showSignature=false",
}

// env is what every git command's environment gets (after the user's,
// so that it wins).
var env = []string{
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_ATTR_NOSYSTEM=1",
	"GIT_TERMINAL_PROMPT=0",
	"GIT_PAGER=cat",
	"GIT_OPTIONAL_LOCKS=0",
	"GIT_NO_LAZY_FETCH=1",
}

// Argv returns the command line of git with args (global options such as
// extra -c settings, then the subcommand and its arguments), with every
// setting that runs a program turned off and every filter driver in
// drivers (see Drivers) emptied. A driver whose name -c cannot carry (it
// holds "=") is an error: git would run it.
func Argv(drivers []string, args ...string) ([]string, error) {
	argv := make([]string, 0, 2+2*len(overrides)+8*len(drivers)+len(args))
	argv = append(argv, "git", "--no-pager")
	for _, o := range overrides {
		argv = append(argv, "-c", o)
	}
	for _, d := range drivers {
		if strings.ContainsAny(d, "=\n\x00") {
			return nil, fmt.Errorf("the repository's configuration defines a filter driver named %q, which jp cannot turn off; remove filter.%s from .git/config", d, d)
		}
		for _, k := range []string{"clean=", "smudge=", "process=", "required=false"} {
			argv = append(argv, "-c", "filter."+d+"."+k)
		}
	}
	return append(argv, args...), nil
}

// Env returns environ (the user's environment) with the settings every
// git command gets appended; for a key set twice, the last wins.
func Env(environ []string) []string {
	out := make([]string, 0, len(environ)+len(env))
	out = append(out, environ...)
	return append(out, env...)
}

// DriversArgv is the command that lists the configured filter drivers
// for Drivers (itself built by Argv, so it runs nothing either). Its exit
// status is 1 when there is none.
func DriversArgv() []string {
	argv, _ := Argv(nil, "config", "--name-only", "-z", "--get-regexp", `^filter\.`)
	return argv
}

// Drivers parses the output of DriversArgv ("filter.<name>.<key>" names,
// each ended by NUL) into the distinct driver names, in order.
func Drivers(out []byte) []string {
	var names []string
	seen := map[string]bool{}
	for _, key := range bytes.Split(out, []byte{0}) {
		k, ok := strings.CutPrefix(string(key), "filter.")
		if !ok {
			continue
		}
		i := strings.LastIndexByte(k, '.')
		if i <= 0 {
			continue
		}
		if name := k[:i]; !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}
