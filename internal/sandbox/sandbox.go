// Package sandbox confines the commands jp runs on the model's behalf
// (the shell tool, local command tools): on Linux with Landlock, writes
// only under the checkout, a private temporary directory and the
// configured write mounts; reads everywhere except the user's secret
// directories; no TCP and no IPv4/IPv6 sockets unless the tool's
// configuration allows the network; and no new privileges (setuid
// programs, sudo, file capabilities gain nothing).
//
// The rules are applied in the child, never to jp: Go cannot run code
// between fork and exec, so jp runs its own binary as a small helper
// (argv[1] == HelperArg) that sets no_new_privs, enforces the Landlock
// ruleset and the seccomp filter on its thread and then execs the
// command. A binary that offers the sandbox calls Init first thing in
// main (or TestMain); Init returns at once in every other case.
//
// "Read everywhere except" is built from Landlock's allow list: every
// directory on the way from / to a denied path is granted directory
// listing (so `ls ~` works), and each of its entries that is not itself
// denied nor on the way to a denied path is granted full read and
// execute. A denied directory's names can be listed; its files cannot be
// opened. Files created in those ancestor directories after the command
// started are not readable by it.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// HelperArg is argv[1] of the helper process.
const HelperArg = "__sandbox-exec"

// Level is how much a sandboxed command may write.
type Level string

// Levels.
const (
	// ReadOnly: no writes but the private temporary directory.
	ReadOnly Level = "read-only"
	// WorkspaceWrite: writes under the checkout too.
	WorkspaceWrite Level = "workspace-write"
	// Off: no sandbox.
	Off Level = "off"
)

// Policy is what one sandboxed command may do. Paths are absolute.
type Policy struct {
	Level Level `json:"level"`
	// Checkout is the checkout root: writable at WorkspaceWrite,
	// readable always.
	Checkout string `json:"checkout"`
	// TempDir is the command's private temporary directory (writable at
	// every level).
	TempDir string `json:"tmp"`
	// Write lists further writable paths (access.fs rules with write).
	Write []string `json:"write,omitempty"`
	// Read lists paths readable even when under a denied one (access.fs
	// rules with read).
	Read []string `json:"read,omitempty"`
	// DenyRead lists the paths a command may not read.
	DenyRead []string `json:"deny_read,omitempty"`
	// Network allows TCP and IPv4/IPv6 sockets.
	Network bool `json:"network,omitempty"`
}

// Init runs the helper when this process is one (os.Args[1] ==
// HelperArg) and never returns then; otherwise it returns at once.
func Init() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	err := helperMain(os.Args[2:])
	fmt.Fprintf(os.Stderr, "jp sandbox: %v\n", err)
	os.Exit(126)
}

// helperMain is argv = POLICY-JSON -- PROGRAM ARGS...
func helperMain(argv []string) error {
	if len(argv) < 3 || argv[1] != "--" {
		return errors.New("usage: jp " + HelperArg + " POLICY -- PROGRAM [ARGS...]")
	}
	var p Policy
	if err := json.Unmarshal([]byte(argv[0]), &p); err != nil {
		return fmt.Errorf("bad policy: %v", err)
	}
	return applyAndExec(p, argv[2:])
}

// Status says whether the sandbox can run here: nil, or an error naming
// why not (no Landlock in this kernel, not Linux).
func Status() error { return status() }

// Wrap returns the argv that runs argv under p: the helper (self, the
// running binary) with the policy, then argv.
func Wrap(self string, p Policy, argv []string) ([]string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return append([]string{self, HelperArg, string(b), "--"}, argv...), nil
}

// DefaultDenyRead lists the secret paths no sandboxed command may read:
// ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, jp's data directory (the
// user-local store, MCP tokens, logs) and jp's configuration directory,
// from env (KEY=VALUE pairs: HOME, XDG_DATA_HOME, XDG_CONFIG_HOME).
func DefaultDenyRead(env []string) []string {
	get := func(k string) string { return lookup(env, k) }
	home := get("HOME")
	var out []string
	if home != "" {
		for _, d := range []string{".ssh", ".aws", ".gnupg", filepath.Join(".config", "gh"), ".netrc", ".docker", ".kube", ".git-credentials", filepath.Join(".config", "gcloud")} {
			out = append(out, filepath.Join(home, d))
		}
	}
	data, conf := get("XDG_DATA_HOME"), get("XDG_CONFIG_HOME")
	if data == "" && home != "" {
		data = filepath.Join(home, ".local", "share")
	}
	if conf == "" && home != "" {
		conf = filepath.Join(home, ".config")
	}
	if data != "" {
		out = append(out, filepath.Join(data, "jp"))
	}
	if conf != "" {
		out = append(out, filepath.Join(conf, "jp"))
	}
	return out
}

// ExpandPath makes p absolute: ~ and ~/ are home, a relative path is
// under base.
func ExpandPath(p, home, base string) string {
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(home, p[2:])
	case !filepath.IsAbs(p):
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// secretEnv reports whether an environment variable's name looks like a
// secret (an API key, token, password): the sandbox leaves those out of
// the command's environment.
func secretEnv(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY", "ACCESS_KEY"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Env returns env for a sandboxed command: without the variables whose
// names look like secrets (API keys, tokens, passwords), with TMPDIR (and
// TMP, TEMP) set to the private temporary directory.
func Env(env []string, tmp string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case secretEnv(k), k == "TMPDIR", k == "TMP", k == "TEMP":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
}

// Denials picks the lines of a command's output that look like the
// sandbox said no (permission denied, operation not permitted, network
// unreachable), at most max of them.
func Denials(out string, max int) []string {
	var found []string
	for line := range strings.SplitSeq(out, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "permission denied") || strings.Contains(l, "operation not permitted") ||
			strings.Contains(l, "read-only file system") || strings.Contains(l, "network is unreachable") ||
			strings.Contains(l, "eacces") || strings.Contains(l, "eperm") ||
			strings.Contains(l, "no new privileges") || strings.Contains(l, "address family not supported") {
			found = append(found, strings.TrimSpace(line))
			if len(found) == max {
				break
			}
		}
	}
	return found
}

// Note is the line jp adds to a failed sandboxed command's result: what
// the sandbox denies, and the lines of the output that look like a
// denial.
func (p Policy) Note(out string) string {
	d := Denials(out, 5)
	if len(d) == 0 {
		return ""
	}
	var where string
	if p.Level == WorkspaceWrite {
		where = "writes outside the checkout " + p.Checkout + " and its private temporary directory"
	} else {
		where = "every write but its private temporary directory"
	}
	net := ", network access"
	if p.Network {
		net = ""
	}
	return fmt.Sprintf("[jp sandbox (%s): this command ran in jp's sandbox, which denies %s, reading the user's secret directories (%s)%s and new privileges (sudo, setuid). Denied: %s]",
		p.Level, where, strings.Join(shortHome(p.DenyRead), ", "), net, strings.Join(d, " | "))
}

func shortHome(paths []string) []string {
	home, _ := os.UserHomeDir()
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if home != "" && strings.HasPrefix(p, home+string(filepath.Separator)) {
			p = "~" + p[len(home):]
		}
		out = append(out, p)
	}
	return out
}

// HelperName is the small helper binary installed beside jp
// (cmd/jp-sandbox).
const HelperName = "jp-sandbox"

// Self is the binary that runs the helper: jp-sandbox beside the running
// binary when it is there (it starts faster: it links nothing but the
// sandbox), else the running binary itself (jp __sandbox-exec). Only the
// running binary's own directory is looked in, never PATH.
var Self = func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	h := filepath.Join(filepath.Dir(exe), HelperName)
	if fi, err := os.Stat(h); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return h, nil
	}
	return exe, nil
}

// Spec is what a tool's configuration asks of the sandbox for one
// command.
type Spec struct {
	// Level is the tool's sandbox level ("" is Off).
	Level Level
	// Checkout is the checkout root the command runs in.
	Checkout string
	// Env is the environment the command would get (os.Environ()); HOME
	// and the XDG variables in it place the secret directories.
	Env []string
	// DenyRead adds paths to DefaultDenyRead (~ is home, relative to the
	// checkout).
	DenyRead []string
	// Read and Write are the access.fs grants (same spelling).
	Read, Write []string
	// Network allows the network.
	Network bool
}

// Prepared is one command ready to start.
type Prepared struct {
	// Argv and Env are what to run.
	Argv, Env []string
	// Sandboxed is true when the command runs in the sandbox.
	Sandboxed bool
	// Policy is the sandbox's policy (when Sandboxed).
	Policy Policy
	// Unavailable says why a command whose tool asked for the sandbox
	// runs without one ("" when it runs in it or asked for none).
	Unavailable string

	tmp string
}

// Cleanup removes the command's private temporary directory.
func (p Prepared) Cleanup() {
	if p.tmp != "" {
		_ = os.RemoveAll(p.tmp)
	}
}

// Prepare returns argv wrapped in the sandbox spec asks for. Level Off
// runs it as it is; where the sandbox is not available here it runs as
// it is too, and Unavailable says why (the caller says so, and jp never
// approves such a command by conversation.tools.auto).
func Prepare(spec Spec, argv []string) (Prepared, error) {
	if spec.Level == "" || spec.Level == Off {
		return Prepared{Argv: argv, Env: spec.Env}, nil
	}
	if err := Status(); err != nil {
		return Prepared{Argv: argv, Env: spec.Env, Unavailable: err.Error()}, nil
	}
	if !runnable(argv[0], spec.Checkout) {
		// Starting it fails as it would without the sandbox, with the
		// same error, and nothing runs.
		return Prepared{Argv: argv, Env: spec.Env}, nil
	}
	self, err := Self()
	if err != nil {
		return Prepared{}, fmt.Errorf("sandbox: find jp's own binary: %w", err)
	}
	tmp, err := os.MkdirTemp("", "jp-sandbox-")
	if err != nil {
		return Prepared{}, fmt.Errorf("sandbox: private temporary directory: %w", err)
	}
	home := lookup(spec.Env, "HOME")
	abs := func(ps []string) []string {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			out = append(out, ExpandPath(p, home, spec.Checkout))
		}
		return out
	}
	pol := Policy{
		Level: spec.Level, Checkout: spec.Checkout, TempDir: tmp,
		Write: abs(spec.Write), Read: abs(spec.Read),
		DenyRead: append(DefaultDenyRead(spec.Env), abs(spec.DenyRead)...),
		Network:  spec.Network,
	}
	wrapped, err := Wrap(self, pol, argv)
	if err != nil {
		_ = os.RemoveAll(tmp)
		return Prepared{}, err
	}
	return Prepared{Argv: wrapped, Env: Env(spec.Env, tmp), Sandboxed: true, Policy: pol, tmp: tmp}, nil
}

// Enforced reports whether a tool at level would run in the sandbox
// here.
func Enforced(level Level) bool {
	return level != "" && level != Off && Status() == nil
}

func lookup(env []string, k string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, k+"="); ok {
			return v
		}
	}
	return ""
}

// runnable reports whether prog names a program (on PATH, or a path
// relative to dir) that a start could run.
func runnable(prog, dir string) bool {
	if strings.ContainsRune(prog, '/') && !filepath.IsAbs(prog) {
		prog = filepath.Join(dir, prog)
	}
	_, err := exec.LookPath(prog)
	return err == nil
}
