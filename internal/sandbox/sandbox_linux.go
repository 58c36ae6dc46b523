//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// minABI is the lowest Landlock ABI jp sandboxes with: 3 handles
// truncation, so `> file` outside the checkout is denied too.
const minABI = 3

var abi = sync.OnceValues(func() (int, error) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0, err
	}
	return v, nil
})

// ABI is the kernel's Landlock ABI version (0 when it has none).
func ABI() int {
	v, err := abi()
	if err != nil {
		return 0
	}
	return v
}

func status() error {
	v, err := abi()
	switch {
	case err != nil:
		return fmt.Errorf("this Linux kernel has no Landlock (%v)", err)
	case v < minABI:
		return fmt.Errorf("this Linux kernel's Landlock is ABI v%d; jp's sandbox needs v%d (Linux 6.2) or later", v, minABI)
	}
	if !seccomp.Supported() {
		return fmt.Errorf("this Linux kernel has no seccomp filters")
	}
	return nil
}

// NetworkByLandlock reports whether the kernel's Landlock also denies TCP
// bind and connect (ABI v4, Linux 6.7); the seccomp filter denies IPv4
// and IPv6 sockets either way.
func NetworkByLandlock() bool { return ABI() >= 4 }

// applyAndExec enforces p on this thread and execs argv in its place.
func applyAndExec(p Policy, argv []string) error {
	if err := status(); err != nil {
		return err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	cfg := landlock.V7
	if !NetworkByLandlock() {
		cfg = landlock.V3
	}
	cfg = cfg.BestEffort()
	rules := fsRules(p)
	if p.Network {
		cfg.HandledAccessNet = 0 // TCP stays open
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock ruleset: %v", err)
	}
	runtime.LockOSThread() // never unlocked: the thread execs
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %v", err)
	}
	if fd >= 0 {
		if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
			return fmt.Errorf("landlock: %v", err)
		}
		_ = unix.Close(fd)
	}
	if err := seccomp.LoadFilter(filter(p)); err != nil {
		return fmt.Errorf("seccomp: %v", err)
	}
	return syscall.Exec(path, argv, os.Environ())
}

// denyErrno is the error a denied socket(2) returns.
const denyErrno = unix.EACCES

// filter is the seccomp filter: without the network, no IPv4, IPv6 or
// packet sockets, and no io_uring (whose operations bypass the socket
// filter); always, no ptrace of other processes and no new user
// namespaces or mounts (ways around Landlock's view).
func filter(p Policy) seccomp.Filter {
	deny := seccomp.ActionErrno | seccomp.Action(denyErrno)
	groups := []seccomp.SyscallGroup{{
		Action: seccomp.ActionErrno | seccomp.Action(unix.EPERM),
		Names:  []string{"ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root", "unshare", "setns", "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "io_uring_setup"},
	}}
	if !p.Network {
		var byDomain []seccomp.NameWithConditions
		for _, af := range []uint64{unix.AF_INET, unix.AF_INET6, unix.AF_PACKET, unix.AF_NETLINK} {
			if af == unix.AF_NETLINK {
				continue // ip, ss and glibc's getaddrinfo read local state through netlink
			}
			byDomain = append(byDomain, seccomp.NameWithConditions{Name: "socket", Conditions: []seccomp.Condition{{Argument: 0, Operation: seccomp.Equal, Value: af}}})
		}
		groups = append(groups, seccomp.SyscallGroup{Action: deny, NamesWithCondtions: byDomain})
	}
	return seccomp.Filter{
		NoNewPrivs: true,
		Policy:     seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups},
	}
}

// devFiles are the device files every command may write.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/ptmx"}

// fsRules turns p into Landlock rules.
func fsRules(p Policy) []landlock.Rule {
	var rules []landlock.Rule
	deny := expandDeny(p.DenyRead)
	read, lists := readable(deny)
	if len(read) > 0 {
		rules = append(rules, landlock.RODirs(onlyDirs(read)...).IgnoreIfMissing(), landlock.ROFiles(onlyFiles(read)...).IgnoreIfMissing())
	}
	if len(lists) > 0 {
		rules = append(rules, landlock.PathAccess(llsys.AccessFSReadDir, lists...).IgnoreIfMissing())
	}
	if len(p.Read) > 0 {
		rules = append(rules, landlock.RODirs(onlyDirs(p.Read)...).IgnoreIfMissing(), landlock.ROFiles(onlyFiles(p.Read)...).IgnoreIfMissing())
	}
	write := []string{p.TempDir}
	if p.Level == WorkspaceWrite && p.Checkout != "" {
		write = append(write, p.Checkout)
	} else if p.Checkout != "" {
		rules = append(rules, landlock.RODirs(p.Checkout).IgnoreIfMissing())
	}
	write = append(write, p.Write...)
	rules = append(rules,
		landlock.RWDirs(onlyDirs(write)...).WithRefer().IgnoreIfMissing(),
		landlock.RWFiles(onlyFiles(write)...).IgnoreIfMissing(),
		landlock.RWFiles(devFiles...).WithIoctlDev().IgnoreIfMissing(),
	)
	return rules
}

func onlyDirs(paths []string) []string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

func onlyFiles(paths []string) []string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

// expandDeny adds each denied path's real path (a symlinked ~/.ssh
// denies its target as well).
func expandDeny(deny []string) []string {
	out := slices.Clone(deny)
	for _, d := range deny {
		if r, err := filepath.EvalSymlinks(d); err == nil && r != d {
			out = append(out, r)
		}
	}
	for i := range out {
		out[i] = filepath.Clean(out[i])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// readable computes the read allow list for "everything but deny": the
// entries of every directory on the way from / to a denied path that are
// neither denied nor on the way (read), and those directories themselves
// (lists: listing only).
func readable(deny []string) (read, lists []string) {
	if len(deny) == 0 {
		return []string{"/"}, nil
	}
	denied := map[string]bool{}
	ancestors := map[string]bool{}
	for _, d := range deny {
		if d == "/" {
			return nil, nil
		}
		denied[d] = true
		for a := filepath.Dir(d); ; a = filepath.Dir(a) {
			ancestors[a] = true
			if a == "/" {
				break
			}
		}
	}
	var walk func(dir string)
	walk = func(dir string) {
		lists = append(lists, dir)
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			switch {
			case denied[p]:
			case ancestors[p]:
				walk(p)
			default:
				read = append(read, p)
			}
		}
	}
	walk("/")
	return read, lists
}

// Describe says what the sandbox does on this kernel, for `jp` to show.
func Describe() string {
	if err := status(); err != nil {
		return err.Error()
	}
	net := "the network (IPv4/IPv6 sockets denied by seccomp"
	if NetworkByLandlock() {
		net += ", TCP bind/connect by Landlock"
	}
	return strings.Join([]string{fmt.Sprintf("Landlock ABI v%d", ABI()), net + ")"}, "; ")
}
